import Foundation
import HearthCLI

exit(HearthCommand.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
