import Foundation
import Testing
import TidingsCrypto
import TidingsModel

/// The commands of docs/identity-tokens.md, run with the `openssl` command line: its keys load and its
/// tokens verify, so the page stays true.
@Suite("JWT and the openssl command line")
struct JWTOpenSSLInteropTests {
    static let appID = "app_7Qx2"

    /// Runs `script` with `/bin/sh` in `directory`; its standard output.
    static func run(_ script: String, in directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "the script failed")
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func documentedES256KeysLoadAndSign() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Self.run(
            """
            openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out identity-es256.pem
            openssl pkey -in identity-es256.pem -pubout -out identity-es256.pub.pem
            """, in: directory)
        let publicPEM = try String(
            contentsOf: directory.appendingPathComponent("identity-es256.pub.pem"), encoding: .utf8)
        let verifier = JWTVerifier(keys: [try JWTVerifier.Key(id: "2026-12", pem: publicPEM)])
        let signer = JWTSigner(
            key: try ES256Key(contentsOfFile: directory.appendingPathComponent("identity-es256.pem").path),
            keyID: "2026-12")
        let token = try signer.sign(
            subject: "user-42", audience: Self.appID, issuedAt: Date(), lifetime: .seconds(3600))
        #expect(try verifier.verify(token, audience: Self.appID, now: Date()).subject == "user-42")
    }

    @Test func documentedRS256ShellTokenVerifies() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = try Self.run(
            """
            openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out identity-rs256.pem
            openssl pkey -in identity-rs256.pem -pubout -out identity-rs256.pub.pem
            b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
            now=$(date +%s)
            header=$(printf '{"alg":"RS256","kid":"2026-12","typ":"JWT"}' | b64url)
            claims=$(printf '{"sub":"user-42","aud":"app_7Qx2","iat":%d,"exp":%d}' "$now" $((now + 3600)) | b64url)
            signature=$(printf '%s.%s' "$header" "$claims" | openssl dgst -sha256 -sign identity-rs256.pem -binary | b64url)
            echo "$header.$claims.$signature"
            """, in: directory)
        let publicPEM = try String(
            contentsOf: directory.appendingPathComponent("identity-rs256.pub.pem"), encoding: .utf8)
        let verifier = JWTVerifier(keys: [try JWTVerifier.Key(id: "2026-12", pem: publicPEM)])
        let claims = try verifier.verify(token, audience: Self.appID, now: Date())
        #expect(claims.subject == "user-42")
        #expect(claims.algorithm == .rs256)
        #expect(claims.keyID == "2026-12")
    }
}
