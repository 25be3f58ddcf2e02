package import HearthCore

/// Plans and runs queries and aggregations on one connection (a reader, a snapshot, or the writer).
package enum QueryRunner {
    /// The plans for a normalized query. In development mode a missing composite index means an unindexed scan,
    /// and the catalog learns the index so later runs use it.
    package static func plan(_ normalized: StructuredQuery, catalog: IndexCatalog) throws -> [ConjunctPlan] {
        var planner = QueryPlanner(
            query: normalized, indexes: catalog.indexes(forCollectionID: normalized.collectionID))
        planner.scansWhenIndexMissing = catalog.learnsIndexes
        planner.refusedForWant = { catalog.refused(needing: $0) }
        let plans = try planner.plan()
        for plan in plans {
            if case .unindexed(let definition) = plan.scan { catalog.needed(definition) }
        }
        return plans
    }

    /// Runs a query: its plans, their matches in order, projected when it has a `select`.
    package static func run(
        _ query: StructuredQuery, catalog: IndexCatalog, in scanner: any IndexScanner, budget: Int = .max,
        truncates: Bool = false
    ) throws -> QueryResults {
        let normalized = query.normalized()
        let plans = try plan(normalized, catalog: catalog)
        var executor = QueryExecutor(scanner: scanner, query: normalized, plans: plans)
        executor.budget = ResultBudget(limit: budget)
        executor.truncates = truncates
        var documents = try executor.run().map(\.document)
        if let projection = query.projection {
            documents = try documents.map { document in
                var projected = document
                projected.fieldsJSON = Value.encodeFields(try document.fields().projected(onto: projection))
                return projected
            }
        }
        return QueryResults(
            documents: documents, plans: plans.map(\.scan.description),
            indexEntriesRead: executor.statistics.indexEntriesRead, documentsRead: executor.statistics.documentsRead,
            truncated: executor.truncated)
    }

    /// Runs an aggregation: counts from the index alone when the plan is exact, else over the matches.
    package static func aggregate(
        _ aggregation: AggregationQuery, catalog: IndexCatalog, in scanner: any IndexScanner
    ) throws -> AggregationResults {
        let normalized = aggregation.query.normalized()
        let plans = try plan(normalized, catalog: catalog)
        var executor = QueryExecutor(
            scanner: scanner, query: normalized, plans: plans, requiredFields: aggregation.aggregatedFields)
        var values: [String: Value]
        let onlyCounts = aggregation.aggregations.allSatisfy { if case .count = $0.kind { true } else { false } }
        if onlyCounts {
            values = [:]
            // Counts with different caps share one scan up to the largest cap.
            let caps = aggregation.aggregations.map { aggregation -> Int64? in
                if case .count(let upTo) = aggregation.kind { return upTo }
                return nil
            }
            let largest: Int64? = caps.contains(where: { $0 == nil }) ? nil : caps.compactMap { $0 }.max()
            let total = try executor.count(upTo: largest)
            for (aggregation, cap) in zip(aggregation.aggregations, caps) {
                values[aggregation.alias] = .integer(cap.map { min($0, total) } ?? total)
            }
        } else {
            var accumulator = AggregationAccumulator(aggregation.aggregations)
            for match in try executor.run() { accumulator.add(fields: match.fields) }
            values = accumulator.results
        }
        return AggregationResults(
            values: values, plans: plans.map(\.scan.description),
            indexEntriesRead: executor.statistics.indexEntriesRead, documentsRead: executor.statistics.documentsRead)
    }
}
