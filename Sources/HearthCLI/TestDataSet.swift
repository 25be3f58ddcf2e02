import Foundation
import HearthLog
import HearthServer

/// The emulator's habit for throwaway test data (`hearth serve --import DIR --export-on-exit DIR`): start from an
/// export, and write the data back out when the server stops.
///
/// Without `--data`, an import goes into a temporary data directory removed at exit, so every run starts from the
/// export as the emulator's does; with `--data`, that directory must be empty. An import directory that does not
/// exist yet is accepted when it is also the `--export-on-exit` directory (the first run of the habit: start empty,
/// export at exit); otherwise it is an error, so a mistyped path is not silently an empty data set.
struct TestDataSet {
    var importDirectory: String?
    var exportDirectory: String?
    /// The temporary data directory made for the import, removed by ``discard()``.
    var temporary: String?
    /// Where the import goes.
    var dataDirectory: String

    /// Reads `--import` and `--export-on-exit` (or `HEARTH_IMPORT`, `HEARTH_EXPORT_ON_EXIT`); points `configuration`
    /// at a temporary data directory when the import needs one.
    init(
        flags: CommandLineArguments, environment: [String: String], configuration: inout ServerConfiguration
    ) throws {
        func value(_ flag: String, _ variable: String) -> String? {
            flags.values[flag] ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        importDirectory = value("--import", "HEARTH_IMPORT")
        exportDirectory = value("--export-on-exit", "HEARTH_EXPORT_ON_EXIT")
        dataDirectory = configuration.dataDirectory
        guard importDirectory != nil, flags.values["--data"] == nil, environment["HEARTH_DATA"] == nil,
            configuration.dataDirectory == ServerConfiguration().dataDirectory
        else { return }
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("hearth-\(UUID().uuidString)")
        configuration.dataDirectory = directory
        dataDirectory = directory
        temporary = directory
    }

    /// Imports the export into the data directory, before the server opens it.
    func load(logger: Logger) throws {
        guard let importDirectory else { return }
        let manifest = (importDirectory as NSString).appendingPathComponent("hearth-export.json")
        if !FileManager.default.fileExists(atPath: manifest), !FileManager.default.fileExists(atPath: importDirectory),
            let exportDirectory, Self.same(exportDirectory, importDirectory)
        {
            logger.info(
                "nothing to import yet; starting empty, the data is exported there at exit",
                ["import": .string(importDirectory)])
            return
        }
        let summary = try DataImport.importData(from: importDirectory, to: dataDirectory)
        logger.info(
            "imported", ["from": .string(importDirectory), "summary": .string(TransferCommand.describe(summary))])
    }

    /// Exports the stopped server's data to the `--export-on-exit` directory, replacing what is there only once the
    /// new export is complete. Returns `false` (after logging why) when it failed.
    func save(configuration: ServerConfiguration, logger: Logger) -> Bool {
        guard let exportDirectory else { return true }
        let manager = FileManager.default
        let fresh = exportDirectory + ".exporting-" + UUID().uuidString
        let old = exportDirectory + ".replaced-" + UUID().uuidString
        do {
            let summary = try DataExport.export(
                data: configuration.dataDirectory, to: fresh, rules: TransferCommand.rulesFiles(of: configuration))
            if manager.fileExists(atPath: exportDirectory) {
                try manager.moveItem(atPath: exportDirectory, toPath: old)
            }
            try manager.moveItem(atPath: fresh, toPath: exportDirectory)
            try? manager.removeItem(atPath: old)
            logger.info(
                "exported on exit",
                ["to": .string(exportDirectory), "summary": .string(TransferCommand.describe(summary))])
            return true
        } catch {
            try? manager.removeItem(atPath: fresh)
            if manager.fileExists(atPath: old), !manager.fileExists(atPath: exportDirectory) {
                try? manager.moveItem(atPath: old, toPath: exportDirectory)
            }
            logger.error("export on exit failed", ["to": .string(exportDirectory), "error": .string("\(error)")])
            FileHandle.standardError.write(Data("hearth serve: export on exit failed: \(error)\n".utf8))
            return false
        }
    }

    /// Removes the temporary data directory, if one was made.
    func discard() {
        if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
    }

    private static func same(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
    }
}
