// hearth-bench: measures the release `hearth` server against baselines measured in the same run — a bare
// libmicrohttpd handler and raw SQLite inserts — and prints each figure beside its baseline and target.
// See Benchmarks/RESULTS.md for what each figure means.
import Foundation

exit(BenchCommand.run(Array(CommandLine.arguments.dropFirst())))
