import Foundation
import Hearth

extension DataSource {
    /// Results to turn into the list: a listener's snapshot (replacing the list) or a page read by ``next(_:)``
    /// (appended to it).
    struct Step {
        let snapshot: QuerySnapshot
        let results: [QueryDocumentSnapshot]
        let appending: Bool
    }

    /// The elements a step has made so far.
    final class Progress {
        /// Paths of the results that need a new element: changed in this step, or not in the list yet.
        let rebuilt: Set<String>
        var built: [String: Element] = [:]
        var outstanding: Int

        init(rebuilt: Set<String>) {
            self.rebuilt = rebuilt
            outstanding = rebuilt.count
        }
    }

    /// Takes `step` after the ones before it.
    func enqueue(_ step: Step) {
        waiting.append(step)
        if !working { startNext() }
    }

    /// Makes the elements of the next waiting step, through `retrieve` when set; applies the step once every
    /// element is made.
    private func startNext() {
        guard !waiting.isEmpty else {
            working = false
            return
        }
        working = true
        let step = waiting.removeFirst()
        generation += 1
        let generation = self.generation
        let listed = Set(documents.map(\.path))
        let changed = Set(
            step.snapshot.documentChanges.filter { $0.type != .removed }.map(\.document.reference.path))
        let needed = step.results.filter { changed.contains($0.reference.path) || !listed.contains($0.reference.path) }
        let progress = Progress(rebuilt: Set(needed.map(\.reference.path)))
        guard let retrieveBlock else {
            for document in needed {
                do {
                    progress.built[document.reference.path] = try Element(snapshot: document)
                } catch {
                    errorBlock?(step.snapshot, .decoding(error))
                }
            }
            return apply(step, progress)
        }
        if needed.isEmpty { return apply(step, progress) }
        for document in needed {
            let path = document.reference.path
            var called = false
            retrieveBlock(step.snapshot, document) { [weak self] element in
                guard let self, self.generation == generation, !called else { return }
                called = true
                progress.built[path] = element
                progress.outstanding -= 1
                if progress.outstanding == 0 { self.apply(step, progress) }
            }
        }
        if progress.outstanding > 0 {
            DispatchQueue.main.asyncAfter(deadline: .now() + .seconds(option.timeout)) { [weak self] in
                MainActor.assumeIsolated {
                    guard let self, self.generation == generation, progress.outstanding > 0 else { return }
                    self.generation += 1
                    self.errorBlock?(step.snapshot, .timeout)
                    self.startNext()
                }
            }
        }
    }

    /// Makes the step's results the list (or appends them), tells ``onChanged(_:)``, and starts the next step.
    private func apply(_ step: Step, _ progress: Progress) {
        let before = documents
        let current = Dictionary(before.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        var after = step.appending ? before : []
        var present = Set(after.map(\.path))
        for document in step.results {
            let path = document.reference.path
            let element = progress.rebuilt.contains(path) ? progress.built[path] : current[path]
            guard let element, present.insert(path).inserted else { continue }
            after.append(element)
        }
        if let sortedBlock, let sorted = try? after.sorted(by: sortedBlock) { after = sorted }
        let beforePaths = Set(before.map(\.path))
        let afterPaths = Set(after.map(\.path))
        let changes: Changes = (
            deletions: before.filter { !afterPaths.contains($0.path) },
            insertions: after.filter { !beforePaths.contains($0.path) },
            modifications: after.filter { beforePaths.contains($0.path) && progress.rebuilt.contains($0.path) }
        )
        willChange()
        documents = after
        changedBlock?(step.snapshot, Snapshot(before: before, after: after, changes: changes))
        startNext()
    }
}
