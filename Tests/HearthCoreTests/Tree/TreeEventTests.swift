import Testing

@testable import HearthCore

@Suite struct TreeEventTests {
    func put(_ path: String, _ value: String) -> TreeChange {
        TreeChange(
            sequence: 1, commitTime: 0, namespace: "n", kind: .put, path: tp(path),
            updates: [.init(path: .root, node: node(value))])
    }

    func patch(_ path: String, _ updates: [(String, String)]) -> TreeChange {
        TreeChange(
            sequence: 1, commitTime: 0, namespace: "n", kind: .patch, path: tp(path),
            updates: updates.map { .init(path: tp($0.0), node: node($0.1)) })
    }

    @Test func putsBelowKeepTheirRelativePath() {
        #expect(put("/a/b/c", "1").event(at: tp("/a")) == .put(path: tp("/b/c"), node: node("1")))
        #expect(put("/a", "1").event(at: tp("/a")) == .put(path: .root, node: node("1")))
    }

    @Test func putsAboveBecomeAPutOfTheNewValueAtRoot() {
        #expect(put("/", #"{"a":{"b":{"c":2}}}"#).event(at: tp("/a/b")) == .put(path: .root, node: node(#"{"c":2}"#)))
        #expect(put("/a", #"{"x":1}"#).event(at: tp("/a/b")) == .put(path: .root, node: nil))
    }

    @Test func unrelatedWritesMakeNoEvent() {
        #expect(put("/x/y", "1").event(at: tp("/a")) == nil)
        #expect(put("/ab", "1").event(at: tp("/a")) == nil)
        #expect(patch("/", [("x", "1"), ("y/z", "2")]).event(at: tp("/a")) == nil)
    }

    @Test func patchesKeepTheirShape() {
        let change = patch("/a", [("b/c", "1"), ("d", "null"), ("e", #"{"f":true}"#)])
        #expect(
            change.event(at: tp("/a"))
                == .patch(
                    path: .root,
                    updates: [
                        .init(path: tp("/b/c"), node: node("1")), .init(path: tp("/d"), node: nil),
                        .init(path: tp("/e"), node: node(#"{"f":true}"#)),
                    ]))
        #expect(change.event(at: .root) == .patch(path: tp("/a"), updates: change.updates))
        // Listening below the patch: only the updates inside the location, relative to it.
        let above = patch("/", [("a/b/c", "1"), ("a/b/d", "2"), ("z", "3")])
        #expect(
            above.event(at: tp("/a/b"))
                == .patch(
                    path: .root,
                    updates: [.init(path: tp("/c"), node: node("1")), .init(path: tp("/d"), node: node("2"))]))
        // An update at or above the location replaces it.
        #expect(above.event(at: tp("/a/b/c/x")) == .put(path: .root, node: nil))
        #expect(
            patch("/", [("a", #"{"b":5}"#), ("q", "1")]).event(at: tp("/a/b")) == .put(path: .root, node: node("5")))
    }

    @Test func appliesChangesToAKeptValue() {
        let start = node(#"{"m":{"a":1,"b":2}}"#)
        let afterPatch = patch("/r", [("m/a", "null"), ("m/c", "3")]).applied(to: start, at: tp("/r"))
        #expect(afterPatch?.json() == js(#"{"m":{"b":2,"c":3}}"#))
        #expect(put("/", #"{"r":{"z":1}}"#).applied(to: start, at: tp("/r"))?.json() == js(#"{"z":1}"#))
        #expect(put("/r/m", "null").applied(to: start, at: tp("/r")) == nil)
        #expect(put("/other", "1").applied(to: start, at: tp("/r")) == start)
    }

    @Test func deletingBelowALeafKeepsIt() {
        let leaf = node(#"{".value":5,".priority":1}"#)
        #expect(TreeNode.setting(nil, at: tp("/b/c"), in: leaf) == leaf)
        #expect(TreeNode.setting(nil, at: tp("/b"), in: nil) == nil)
        #expect(put("/a/b", "null").applied(to: leaf, at: tp("/a")) == leaf)
        #expect(
            TreeNode.setting(node("1"), at: tp("/b"), in: leaf)
                == TreeNode(.children(["b": .leaf(.integer(1))]), priority: .integer(1)))
    }

    @Test func diffsQueryWindows() {
        let a = node("1")!
        let b = node("2")!
        #expect(TreeQuery.event(from: ["x": a], to: ["x": a]) == nil)
        #expect(TreeQuery.event(from: ["x": a], to: ["x": b]) == .put(path: tp("/x"), node: b))
        #expect(TreeQuery.event(from: ["x": a], to: [:]) == .put(path: tp("/x"), node: nil))
        #expect(
            TreeQuery.event(from: ["x": a], to: ["y": b])
                == .patch(path: .root, updates: [.init(path: tp("/x"), node: nil), .init(path: tp("/y"), node: b)]))
    }

    @Test func framesServerSentEvents() {
        let frame = TreeEvent.put(path: tp("/a"), node: node(#"{"b":"x\ny"}"#)).frame()
        #expect(
            String(decoding: frame, as: UTF8.self)
                == "event: put\ndata: {\"path\":\"/a\",\"data\":{\"b\":\"x\\ny\"}}\n\n")
        let patchFrame = TreeEvent.patch(path: .root, updates: [.init(path: tp("/b/c"), node: nil)]).frame()
        #expect(
            String(decoding: patchFrame, as: UTF8.self)
                == "event: patch\ndata: {\"path\":\"/\",\"data\":{\"b/c\":null}}\n\n")
        #expect(String(decoding: TreeEvent.keepAlive.frame(), as: UTF8.self) == "event: keep-alive\ndata: null\n\n")
        #expect(String(decoding: TreeEvent.cancel.frame(), as: UTF8.self) == "event: cancel\ndata: null\n\n")
        #expect(
            String(decoding: TreeEvent.authRevoked.frame(), as: UTF8.self)
                == "event: auth_revoked\ndata: credential is no longer valid\n\n")
        let exported = TreeEvent.put(path: .root, node: node(#"{".value":1,".priority":2}"#)).frame(.export)
        #expect(String(decoding: exported, as: UTF8.self).contains(#""data":{".priority":2,".value":1}"#))
    }
}
