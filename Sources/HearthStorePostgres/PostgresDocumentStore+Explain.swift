package import HearthCore
internal import HearthPostgres
import HearthStore

/// One SQL statement a query ran, with PostgreSQL's plan for it.
package struct PostgresStatementPlan: Sendable, CustomStringConvertible {
    /// The statement's text, `$n` placeholders and all.
    package var sql: String
    /// `EXPLAIN`'s output for it with the parameters the query bound, one node per line.
    package var plan: String

    package var description: String { "\(sql)\n\(plan)" }
}

extension PostgresDocumentStore {
    /// Runs `query` as `runQuery` does and returns each distinct statement it ran (the first parameters each was
    /// bound with) with PostgreSQL's plan for it: what proves a query plan maps to index range scans here too.
    package func explain(_ query: StructuredQuery) throws(HearthError) -> [PostgresStatementPlan] {
        let catalog = catalog
        return try readSnapshot("explaining a query") { db in
            try Self.explaining(db) { scanner in _ = try QueryRunner.run(query, catalog: catalog, in: scanner) }
        }
    }

    /// Runs `aggregation` as `runAggregation` does and returns each distinct statement it ran with its plan.
    package func explain(_ aggregation: AggregationQuery) throws(HearthError) -> [PostgresStatementPlan] {
        let catalog = catalog
        return try readSnapshot("explaining an aggregation query") { db in
            try Self.explaining(db) { scanner in
                _ = try QueryRunner.aggregate(aggregation, catalog: catalog, in: scanner)
            }
        }
    }

    private static func explaining(
        _ db: PostgresConnection, _ run: (PostgresIndexScanner) throws -> Void
    ) throws -> [PostgresStatementPlan] {
        final class Heard {
            var statements: [(String, [PostgresParameter])] = []
        }
        let heard = Heard()
        var scanner = PostgresIndexScanner(db: db)
        scanner.observer = { sql, parameters in
            if !heard.statements.contains(where: { $0.0 == sql }) { heard.statements.append((sql, parameters)) }
        }
        try run(scanner)
        return try heard.statements.map { sql, parameters in
            let lines = try db.query("EXPLAIN " + sql, parameters).rows.map { try $0.string(0) ?? "" }
            return PostgresStatementPlan(sql: sql, plan: lines.joined(separator: "\n"))
        }
    }
}
