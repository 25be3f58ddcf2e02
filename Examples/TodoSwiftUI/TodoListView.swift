#if canImport(SwiftUI)
import Foundation
import HearthModels
import HearthTodo
import SwiftUI

/// The live list: the title carries the count, rows complete with a tap, swipe to delete, and editing happens in a
/// sheet on a copy.
struct TodoListView: View {
    let model: TodoListModel
    @State private var editing: Document<Todo>?
    @State private var failure: String?

    var body: some View {
        NavigationStack {
            List {
                ForEach(model.todos) { todo in
                    TodoRow(todo: todo) {
                        run { try await model.setCompleted(todo, !todo[\.completed]) }
                    }
                    .contentShape(Rectangle())
                    .onTapGesture { editing = model.draft(for: todo) }
                }
                .onDelete { offsets in
                    let doomed = offsets.map { model.todos[$0] }
                    run { for todo in doomed { try await model.delete(todo) } }
                }
            }
            .navigationTitle(model.title)
            .toolbar {
                Button("Add", systemImage: "plus") { editing = model.newDraft() }
            }
            .sheet(item: $editing) { draft in
                TodoEditor(draft: draft) { saved in
                    try await model.save(saved)
                }
            }
            .alert("Could not save", isPresented: .constant(failure != nil)) {
                Button("OK") { failure = nil }
            } message: {
                Text(failure ?? "")
            }
        }
    }

    private func run(_ action: @escaping @MainActor () async throws -> Void) {
        Task {
            do { try await action() } catch { failure = "\(error)" }
        }
    }
}

/// One todo: check box, stars, date, title and note.
struct TodoRow: View {
    let todo: Document<Todo>
    let toggle: () -> Void

    var body: some View {
        HStack {
            Button(action: toggle) {
                Image(systemName: todo[\.completed] ? "checkmark.circle.fill" : "circle")
            }
            .buttonStyle(.borderless)
            VStack(alignment: .leading) {
                Text(todo[\.title]).strikethrough(todo[\.completed])
                if !todo[\.note].isEmpty { Text(todo[\.note]).font(.caption).foregroundStyle(.secondary) }
            }
            Spacer()
            VStack(alignment: .trailing) {
                Text(todo.data.stars).foregroundStyle(.orange)
                Text(todo[\.date], format: .dateTime.year().month().day()).font(.caption)
            }
        }
    }
}

/// Edits a copy of a todo; Cancel drops it, so the list never sees an unsaved change.
struct TodoEditor: View {
    @State var draft: Document<Todo>
    let save: (Document<Todo>) async throws -> Void
    @Environment(\.dismiss) private var dismiss
    @State private var failure: String?

    var body: some View {
        NavigationStack {
            Form {
                TextField("Title", text: $draft.data.title)
                TextField("Note", text: $draft.data.note, axis: .vertical)
                Stepper(value: $draft.data.importance, in: Todo.importanceRange) {
                    Text(draft.data.stars).foregroundStyle(.orange)
                }
                DatePicker("Date", selection: $draft.data.date, displayedComponents: .date)
                Toggle("Completed", isOn: $draft.data.completed)
                if let failure { Text(failure).foregroundStyle(.red) }
            }
            .toolbar {
                ToolbarItem(placement: .cancellationAction) { Button("Cancel") { dismiss() } }
                ToolbarItem(placement: .confirmationAction) {
                    Button("Save") {
                        Task {
                            do {
                                try await save(draft)
                                dismiss()
                            } catch {
                                failure = "\(error)"
                            }
                        }
                    }
                }
            }
        }
    }
}
#endif
