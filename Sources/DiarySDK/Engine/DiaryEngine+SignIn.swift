import Foundation

extension DiaryEngine {
    /// Checks credentials without signing in: what a server calls before issuing its own tokens.
    /// - Parameter credentials: Email and password, or an external identity token.
    /// - Returns: The user, as its owner sees it. An identity token for an unknown subject creates the account, in
    ///   the device's time zone.
    /// - Throws: `.unauthenticated` for wrong credentials.
    @_spi(Engine)
    public func authenticate(_ credentials: Credentials) async throws -> User {
        try await authenticate(credentials, timeZoneIdentifier: nil)
    }

    /// Checks credentials without signing in, creating the account of a new identity-token subject in a given time
    /// zone: what a server calls with the zone the client sent.
    ///
    /// A wrong password costs the same work whether or not the email belongs to an account: for an unknown email
    /// (or an account without a password) the typed password is hashed against a dummy credential with the
    /// configured iteration count, so the answer's timing does not tell which emails are registered.
    ///
    /// An identity token links to an existing account with the same email only when the verifier says the provider
    /// verified that email (``VerifiedIdentity/isEmailVerified``); an unverified email is not stored either.
    /// - Parameters:
    ///   - credentials: Email and password, or an external identity token.
    ///   - timeZoneIdentifier: The zone for an account the call creates; the backend's default when `nil`.
    /// - Returns: The user, as its owner sees it.
    /// - Throws: `.unauthenticated` for wrong credentials; `.invalidInput` on `timeZoneIdentifier` for an unknown
    ///   zone with an identity token (a password sign-in ignores the zone).
    @_spi(Engine)
    public func authenticate(_ credentials: Credentials, timeZoneIdentifier: String?) async throws -> User {
        switch credentials {
        case .password(let email, let password):
            return try await authenticate(email: email, password: password)
        case .identityToken(let provider, let token):
            let zone = try Self.timeZoneIdentifier(timeZoneIdentifier) ?? environment.defaultTimeZone.identifier
            return try await authenticate(provider: provider, token: token, timeZoneIdentifier: zone)
        }
    }

    private func authenticate(email: String, password: String) async throws -> User {
        let normalized = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let wrong = DiaryError(.unauthenticated, "the email or password is incorrect")
        let found = try await store.read("accounts.signIn") { db -> (User, CredentialRecord)? in
            guard let credential = try await db.row(StorageSchema.credentialsByEmail, equalTo: normalized),
                let user = try await db.user(credential.userID)
            else { return nil }
            return (user, credential)
        }
        let hasher = configuration.passwordHasher
        guard let (user, credential) = found, credential.iterations > 0,
            let salt = Self.bytes(fromHex: credential.salt), !salt.isEmpty
        else {
            // The same derivation a real credential costs, so an unknown email answers no faster.
            _ = await hasher.derive(
                password: Array(password.utf8), salt: Self.dummySalt, iterations: configuration.passwordHashIterations)
            throw wrong
        }
        let hash = await hasher.derive(password: Array(password.utf8), salt: salt, iterations: credential.iterations)
        guard Self.constantTimeEqual(SHA256.hex(hash), credential.hash) else { throw wrong }
        return user
    }

    private func authenticate(provider: String, token: String, timeZoneIdentifier zone: String) async throws -> User {
        guard let verifier = configuration.identityTokenVerifier else {
            throw DiaryError(.unauthenticated, "sign-in with \(provider) is not configured for this backend")
        }
        let identity = try await verifier.verify(token: token, provider: provider)
        let key = "\(provider):\(identity.subject)"
        let now = self.now
        let newUserID: User.ID = newID()
        // Only an email the provider verified is trusted: to link accounts, and as the new account's email.
        let email = identity.isEmailVerified ? identity.email.flatMap { try? Validation.email($0) } : nil
        return try await store.write("accounts.signIn") { transaction in
            if let linked = try await transaction.row(StorageSchema.credentialsByExternalIdentity, equalTo: key),
                let user = try await transaction.user(linked.userID)
            {
                return user
            }
            if let email, var credential = try await transaction.row(StorageSchema.credentialsByEmail, equalTo: email),
                let user = try await transaction.user(credential.userID)
            {
                credential.externalIdentities.append(key)
                try await transaction.put(.credential(credential))
                return user
            }
            var nickname = "user_" + String(newUserID.description.prefix(8))
            let byNickname = StorageSchema.usersByNickname
            while try await transaction.row(byNickname, equalTo: Validation.nicknameKey(nickname)) != nil {
                nickname += "_"
            }
            let user = User(
                id: newUserID, nickname: nickname, email: email, createdAt: now,
                settings: UserSettings(timeZoneIdentifier: zone))
            try await transaction.put(.user(user))
            try await transaction.put(
                .credential(
                    CredentialRecord(
                        userID: user.id, email: email ?? "\(key)@external.invalid", salt: "", iterations: 0,
                        hash: "", externalIdentities: [key])))
            return user
        }
    }

    /// Checks an optional IANA time zone identifier.
    /// - Throws: `.invalidInput` on `timeZoneIdentifier` when it names no zone.
    package static func timeZoneIdentifier(_ identifier: String?) throws -> String? {
        guard let identifier else { return nil }
        guard let zone = TimeZone(identifier: identifier) else {
            throw DiaryError.invalid("timeZoneIdentifier", .invalidFormat, "'\(identifier)' is not a time zone")
        }
        return zone.identifier
    }

    /// The salt of the dummy credential an unknown email is checked against.
    private static let dummySalt = randomBytes(16)

    private static func bytes(fromHex hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let byte = UInt8(String(decoding: characters[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            result.append(byte)
        }
        return result
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
