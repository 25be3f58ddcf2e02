import HearthHTTP
import Testing

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresLetterCaseAndReturnsFirstMatch() {
        var headers: HTTPHeaders = [("Content-Type", "text/plain"), ("X-Tag", "a")]
        headers.add(name: "x-tag", value: "b")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers["X-TAG"] == "a")
        #expect(headers.values(for: "x-Tag") == ["a", "b"])
        #expect(headers["Missing"] == nil)
        #expect(headers.values(for: "Missing").isEmpty)
        #expect(headers.count == 3)
    }

    @Test func keepsOrderAndSupportsReplacement() {
        var headers: HTTPHeaders = ["A": "1", "B": "2"]
        headers.add(name: "a", value: "3")
        #expect(headers.map(\.value) == ["1", "2", "3"])
        headers.replaceOrAdd(name: "A", value: "4")
        #expect(headers.map(\.name) == ["B", "A"])
        #expect(headers.values(for: "a") == ["4"])
        headers.remove(name: "b")
        #expect(headers == ["a": "4"])
    }

    @Test func caseFoldingIsASCIIOnly() {
        let headers: HTTPHeaders = [("Ä", "umlaut")]
        #expect(headers["ä"] == nil)
        #expect(headers["Ä"] == "umlaut")
    }

    @Test func requestQueryHelpers() {
        let request = HTTPRequest(
            method: "PATCH", path: "/doc",
            query: [
                HTTPQueryItem(name: "updateMask.fieldPaths", value: "a"),
                HTTPQueryItem(name: "key", value: "k"),
                HTTPQueryItem(name: "updateMask.fieldPaths", value: "b"),
            ])
        #expect(request.queryValue("updateMask.fieldPaths") == "a")
        #expect(request.queryValues("updateMask.fieldPaths") == ["a", "b"])
        #expect(request.queryValue("missing") == nil)
        #expect(request.bodyTooLarge == false)
    }

    @Test func jsonResponseSetsContentType() {
        let response = HTTPResponse.json(status: 201, bytes: Array("{}".utf8))
        #expect(response.status == 201)
        #expect(response.headers["content-type"] == "application/json; charset=utf-8")
        #expect(response.body == Array("{}".utf8))
    }
}
