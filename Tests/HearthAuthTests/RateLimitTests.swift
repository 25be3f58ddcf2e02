import Testing

@testable import HearthAuth

@Suite struct RateLimitTests {
    @Test func bucketRefillsOverItsWindow() throws {
        let time = TestClock()
        let limiter = RateLimiter(limit: .init(count: 2, seconds: 60), clock: time.clock)
        #expect(try limiter.consume("a") && limiter.consume("a"))
        #expect(try !limiter.consume("a"))
        #expect(try !limiter.allows("a"))
        #expect(try limiter.consume("b"), "keys are independent")
        time.advance(30)
        #expect(try limiter.consume("a"), "half the window gives back one attempt")
        #expect(try !limiter.consume("a"))
        limiter.reset("a")
        #expect(try limiter.allows("a"))
        let off = RateLimiter(limit: .init(count: 0, seconds: 1), clock: time.clock)
        #expect(try (0..<100).allSatisfy { _ in try off.consume("x") })
    }

    @Test func parsing() {
        let limits = RateLimits(parsing: "account=3/60, mail=1/10")
        #expect(limits?.failedSignInsPerAccount == .init(count: 3, seconds: 60))
        #expect(limits?.mailsPerAccount == .init(count: 1, seconds: 10))
        #expect(limits?.attemptsPerAddress == RateLimits().attemptsPerAddress)
        #expect(RateLimits(parsing: "bogus=1/2") == nil)
        #expect(RateLimits(parsing: "account=1") == nil)
    }

    @Test func failedSignInsLockTheAccountEvenForTheRightPassword() throws {
        let fixture = try Fixture { $0.rateLimits.failedSignInsPerAccount = .init(count: 3, seconds: 300) }
        try fixture.signUp("f@example.com")
        let service = fixture.service
        for _ in 0..<3 {
            #expect(
                authErrorCode {
                    _ = try service.signInWithPassword(
                        email: "f@example.com", password: "wrong-pw", context: Fixture.client)
                } == "INVALID_PASSWORD")
        }
        #expect(
            authErrorCode {
                _ = try service.signInWithPassword(
                    email: "f@example.com", password: "secret-pw", context: Fixture.client)
            } == "TOO_MANY_ATTEMPTS_TRY_LATER")
        fixture.time.advance(100)
        #expect(
            try service.signInWithPassword(email: "f@example.com", password: "secret-pw", context: Fixture.client)
                .tokens != nil)
    }

    @Test func addressLimitCoversSignInSignUpAndResets() throws {
        let fixture = try Fixture { $0.rateLimits.attemptsPerAddress = .init(count: 3, seconds: 60) }
        try fixture.signUp("g@example.com")
        _ = try fixture.service.signInWithPassword(
            email: "g@example.com", password: "secret-pw", context: Fixture.client)
        var reset = OobCodeRequest()
        reset.requestType = "PASSWORD_RESET"
        reset.email = "g@example.com"
        _ = try fixture.service.sendOobCode(reset, context: Fixture.client)
        #expect(
            authErrorCode { _ = try fixture.service.sendOobCode(reset, context: Fixture.client) }
                == "TOO_MANY_ATTEMPTS_TRY_LATER")
        #expect(authErrorCode { try fixture.signUp("h@example.com") } == "TOO_MANY_ATTEMPTS_TRY_LATER")
        var elsewhere = Fixture.client
        elsewhere.clientAddress = "198.51.100.7"
        #expect(
            try fixture.service.signInWithPassword(email: "g@example.com", password: "secret-pw", context: elsewhere)
                .tokens != nil)
        #expect(
            try fixture.service.signInWithPassword(
                email: "g@example.com", password: "secret-pw", context: Fixture.admin
            ).tokens != nil,
            "admin calls are not limited")
    }

    @Test func resetMailsPerAccountAreLimited() throws {
        let fixture = try Fixture { $0.rateLimits.mailsPerAccount = .init(count: 2, seconds: 3600) }
        try fixture.signUp("i@example.com")
        var reset = OobCodeRequest()
        reset.requestType = "PASSWORD_RESET"
        reset.email = "i@example.com"
        _ = try fixture.service.sendOobCode(reset, context: Fixture.client)
        _ = try fixture.service.sendOobCode(reset, context: Fixture.client)
        #expect(
            authErrorCode { _ = try fixture.service.sendOobCode(reset, context: Fixture.client) }
                == "TOO_MANY_ATTEMPTS_TRY_LATER")
        fixture.service.flushMail()
        #expect(fixture.outbox.entries.count == 2)
    }
}
