/// The wrk Lua scripts, generated per run.
///
/// Each wrk thread has its own Lua state; `setup` numbers the threads so generated IDs never collide.
enum LuaScripts {
    /// The database prefix of every documents URL.
    static let documentsPath = "/v1/projects/demo/databases/(default)/documents"
    /// The fields of every benchmark document: a string, an integer and a boolean (3 automatic index entries).
    static let fieldsJSON =
        #"{"title":{"stringValue":"hello"},"n":{"integerValue":"42"},"done":{"booleanValue":false}}"#
    /// The body of a single-document create.
    static let createBody = #"{"fields":\#(fieldsJSON)}"#

    /// `POST …/documents/bench` with the same small document on every request (the server picks the ID).
    static func create() -> String {
        """
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        wrk.body = '\(createBody)'
        """
    }

    /// A `setup` that points wrk's threads at the given 127.0.0.1 ports in turn (`thread.addr`), so one wrk spreads
    /// its connections over several nodes; goes before a script that defines no `setup` of its own.
    static func spread(over ports: [String]) -> String {
        """
        local ports = { \(ports.map { "\"\($0)\"" }.joined(separator: ", ")) }
        local spread = 0
        function setup(thread)
          spread = spread + 1
          thread.addr = wrk.lookup("127.0.0.1", ports[(spread - 1) % #ports + 1])[1]
        end

        """
    }

    /// `POST` of the same JSON body on every request, with `Authorization: Bearer` when given a token.
    static func post(body: String, bearer: String? = nil) -> String {
        """
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        \(bearer.map { "wrk.headers[\"Authorization\"] = \"Bearer \($0)\"" } ?? "")
        wrk.body = '\(body)'
        """
    }

    /// `GET …/documents/{collection}/doc000000…` picked at random among `count` seeded documents.
    static func randomGet(collection: String, count: Int) -> String {
        """
        local threads = 0
        function setup(thread)
          threads = threads + 1
          thread:set("thread_number", threads)
        end
        local requests = {}
        local count = \(count)
        function init(args)
          math.randomseed(os.time() * 1000 + thread_number)
          for i = 1, count do
            requests[i] = wrk.format("GET", "\(documentsPath)/\(collection)/" .. string.format("doc%06d", i - 1))
          end
        end
        function request()
          return requests[math.random(count)]
        end
        """
    }

    /// `POST …/documents:commit` with `writes` `update` writes of new documents in `collection`; IDs are unique
    /// per run (`nonce`), per wrk thread and per request.
    static func commit(collection: String, writes: Int, nonce: String) -> String {
        """
        local threads = 0
        function setup(thread)
          threads = threads + 1
          thread:set("thread_number", threads)
        end
        local sequence = 0
        local headers = { ["Content-Type"] = "application/json" }
        local fields = '"fields":\(fieldsJSON)}}'
        local prefix = '{"update":{"name":"projects/demo/databases/(default)/documents/\(collection)/\(nonce)t'
        function request()
          sequence = sequence + 1
          local stem = prefix .. thread_number .. "r" .. sequence .. "w"
          local parts = {}
          for j = 1, \(writes) do
            parts[j] = stem .. j .. '",' .. fields
          end
          local body = '{"writes":[' .. table.concat(parts, ",") .. ']}'
          return wrk.format("POST", "\(documentsPath):commit", headers, body)
        end
        """
    }

    /// The JSON body of a commit of `ids` in `collection`, for seeding.
    static func commitBody(collection: String, ids: some Sequence<String>) -> String {
        let writes = ids.map {
            #"{"update":{"name":"projects/demo/databases/(default)/documents/\#(collection)/\#($0)","fields":\#(fieldsJSON)}}"#
        }
        return #"{"writes":["# + writes.joined(separator: ",") + "]}"
    }
}
