import Foundation
import Hearth
import HearthModels
import HearthTestSupport
import HearthTodo
import Testing

/// A todo's attachment: a Ballcap `File` uploaded beside the todo's document, through the SDK's Storage.
@Suite("Todo attachments against a real server")
@MainActor
struct TodoAttachmentTests {
    @Test("attaching uploads beside the document, another device reads it back, deleting the todo deletes the file")
    func attachReadAndDelete() async throws {
        try await withServer(arguments: TodoListModelTests.arguments) { server in
            let email = uniqueEmail()
            let model = try await TodoListModelTests.model(server, email)
            let other = try await TodoListModelTests.model(server, email, label: "other")
            defer {
                model.stop()
                other.stop()
            }
            try await model.save(model.newDraft(title: "Pay the bill", date: TodoListModelTests.day("2026-12-02")))
            #expect(await eventually { await model.todos.count == 1 })
            let todo = try #require(model.todos.first)
            #expect(todo[\.attachment] == nil)

            let bill = server.directory.appendingPathComponent("bill.pdf")
            let bytes = Data("%PDF-1.4 a bill".utf8)
            try bytes.write(to: bill)
            try await model.attach(bill, to: todo)

            // The other device's list shows the attachment, which points beside the todo's document.
            #expect(await eventually { await other.todos.first?[\.attachment] != nil })
            let file = try #require(other.todos.first?[\.attachment])
            #expect(file.path == "\(todo.reference.path)/bill.pdf")
            #expect(file.mimeType == .pdf)
            #expect(file.url != nil, "the download URL is stored with it")
            #expect(try await file.getData() == bytes)

            // Replacing it with a file of another name deletes the first from Storage.
            let receipt = server.directory.appendingPathComponent("receipt.txt")
            try Data("paid".utf8).write(to: receipt)
            try await model.attach(receipt, to: try #require(model.todos.first))
            #expect(await eventually { await other.todos.first?[\.attachment]?.name == "receipt.txt" })
            await #expect(throws: StorageError.self) { _ = try await file.storageReference.getMetadata() }

            let current = try #require(other.todos.first)
            try await other.delete(current)
            #expect(await eventually { await model.todos.isEmpty })
            let attachment = try #require(current[\.attachment])
            await #expect(throws: StorageError.self) { _ = try await attachment.storageReference.getMetadata() }
        }
    }

    @Test("a path with no file is refused before anything is sent")
    func missingFile() async throws {
        try await withServer(arguments: TodoListModelTests.arguments) { server in
            let model = try await TodoListModelTests.model(server, uniqueEmail())
            defer { model.stop() }
            try await model.save(model.newDraft(title: "Scan", date: TodoListModelTests.day("2026-12-02")))
            #expect(await eventually { await model.todos.count == 1 })
            let missing = server.directory.appendingPathComponent("nothing.png")
            await #expect(throws: TodoError.unreadableFile(missing.path)) {
                try await model.attach(missing, to: try #require(model.todos.first))
            }
            #expect(model.todos.first?[\.attachment] == nil)
        }
    }
}
