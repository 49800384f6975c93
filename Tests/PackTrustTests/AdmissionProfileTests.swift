import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import XCTest

/// The admission table: each kind of signed document says its payload type, role and cap once, each profile says what
/// it judges, and a document is admitted only when it meets every policy its kind lists for the profile read under.
final class AdmissionProfileTests: XCTestCase {
    private let keys: [String: Ed25519PrivateKey] = Dictionary(uniqueKeysWithValues: ["root", "manifest", "index", "grant"].map { ($0, try! Ed25519PrivateKey()) })
    private let now = Timestamp.parse("2026-12-01T00:00:00Z")!.timeIntervalSince1970

    private var root: RootDocument {
        var publicKeys: [String: RootDocument.Key] = [:]
        var roles: [String: RootDocument.Role] = [:]
        for (role, key) in keys {
            publicKeys[key.publicKey.keyID] = .init(public: Hex.encode(key.publicKey.rawRepresentation))
            roles[role] = .init(keyids: [key.publicKey.keyID], threshold: 1)
        }
        return RootDocument(version: 1, expires: "2027-12-01T00:00:00Z", keys: publicKeys, roles: roles)
    }

    /// `payload` in an envelope of `kind`'s payload type, signed by `role`'s key (whichever role signs that kind).
    private func signed(_ payload: [UInt8], kind: DocumentKind, by role: String) throws -> Data {
        Data(try CanonicalJSON.encode(try DSSEEnvelope(signing: payload, as: kind.payloadType, with: [keys[role]!])))
    }

    private func manifest(pack: String = "royal-mile", version: Int = 5, scene: String = "01-castle", hours: Int = 72,
                          created: String = "2026-11-30T00:00:00Z", expires: String = "2027-01-01T00:00:00Z",
                          files: [String] = ["pack.json"]) -> Manifest {
        let access = AccessPolicy(freeStops: [], products: .init(cityPack: .init(productId: "city"), tripPass: .init(productId: "trip", hours: hours)))
        let listed = files.map { Manifest.File(path: $0, size: 2, sha256: String(repeating: "0", count: 64), mediaType: "application/json") }
        return Manifest(pack: pack, version: version, created: created, expires: expires, access: access, files: listed,
                        scenes: [.init(id: scene, version: 1, digest: "sha256:" + String(repeating: "0", count: 64), files: [])])
    }

    private func code(_ body: () throws -> Any) -> String? {
        do { _ = try body(); return nil } catch { return (error as? VerificationFailure)?.code ?? "\(error)" }
    }

    // MARK: The table

    func testEachKindSaysItsPayloadTypeSigningRoleAndSizeCap() {
        let table: [(DocumentKind, String, String, UInt64)] = [
            (.root, PayloadType.root, "root", 1 << 20),
            (.index, PayloadType.index, "index", 4 << 20),
            (.manifest, PayloadType.manifest, "manifest", 16 << 20),
            (.delta, PayloadType.delta, "manifest", 16 << 20),
            (.grant, PayloadType.grant, "grant", 8 << 10),
            (.revocations, PayloadType.revocations, "grant", 512 << 10),
        ]
        XCTAssertEqual(table.map(\.0), DocumentKind.all, "every kind is in the table, in order")
        for (kind, type, role, cap) in table {
            XCTAssertEqual(kind.payloadType, type, "\(kind)")
            XCTAssertEqual(kind.role, role, "\(kind)")
            XCTAssertEqual(kind.sizeCap, cap, "\(kind)")
        }
        XCTAssertEqual(Set(DocumentKind.all.map(\.payloadType)).count, DocumentKind.all.count, "no two kinds share a payload type")
    }

    func testEachProfileJudgesTimesAndFloorsOnlyWhereItsReaderNeedsThem() {
        let table: [(AdmissionProfile, times: Bool, floors: Bool)] = [
            (.install, true, true), (.publisherCheck, true, false), (.access, true, false), (.rootRotation, false, true), (.atRest, false, false),
        ]
        XCTAssertEqual(table.map(\.0), AdmissionProfile.all)
        for (profile, times, floors) in table {
            XCTAssertEqual(profile.judgesTimes, times, "\(profile)")
            XCTAssertEqual(profile.judgesFloors, floors, "\(profile)")
        }
    }

    // MARK: Type, role and cap

    func testADocumentCarryingAnotherKindsPayloadTypeIsRefusedAsPayloadType() throws {
        let root = self.root
        for kind in DocumentKind.all {
            let other = DocumentKind.all.first { $0.payloadType != kind.payloadType }!
            let envelope = try SignedDocument.envelope(try signed(Array("{}".utf8), kind: other, by: kind.role), what: kind.name)
            XCTAssertEqual(code { try SignedDocument().payload(of: envelope, kind: kind, root: root) }, "payload-type", "\(kind)")
        }
    }

    func testADocumentSignedByAnotherRolesKeyIsRefusedAsThreshold() throws {
        let root = self.root
        for kind in DocumentKind.all {
            let stranger = ["root", "manifest", "index", "grant"].first { $0 != kind.role }!
            let envelope = try SignedDocument.envelope(try signed(Array("{}".utf8), kind: kind, by: stranger), what: kind.name)
            XCTAssertEqual(code { try SignedDocument().payload(of: envelope, kind: kind, root: root) }, "threshold", "\(kind) signed by \(stranger)")
        }
    }

    func testAManifestSignedAsAnAccessCodeIsNeverAdmittedAsAManifest() throws {
        let data = try signed(try CanonicalJSON.encode(manifest()), kind: .grant, by: "manifest")
        XCTAssertEqual(code { try SignedDocument().admit(data, as: Manifest.self, profile: .install, context: AdmissionContext(root: self.root, now: self.now)) }, "payload-type")
    }

    func testADocumentOverItsKindsCapIsRefusedBeforeItIsParsed() {
        let data = Data(repeating: UInt8(ascii: " "), count: Int(SizeCaps.grant) + 1)
        XCTAssertEqual(code { try SignedDocument().admit(data, as: GrantDocument.self, profile: .access, context: AdmissionContext(root: self.root)) }, "size")
    }

    // MARK: Policies per profile

    func testAnHonestManifestIsAdmittedUnderEveryProfile() throws {
        let data = try signed(try CanonicalJSON.encode(manifest()), kind: .manifest, by: "manifest")
        for profile in AdmissionProfile.all {
            XCTAssertEqual(try SignedDocument().admit(data, as: Manifest.self, profile: profile, context: AdmissionContext(root: root, now: now)).pack, "royal-mile", "\(profile)")
        }
    }

    /// Content (ids, names, paths, numbers) is judged under every profile; times where the reader has a clock that
    /// counts; floors only where the reader has them.
    func testEachForgedManifestIsRefusedWithTheSameCodeUnderEveryProfileThatJudgesIt() throws {
        let floors = Rollback.Floors(root: 1, index: 1, manifests: ["royal-mile": 4], scenes: [:])
        let content: Set<AdmissionProfile> = Set(AdmissionProfile.all), timed: Set<AdmissionProfile> = [.install, .publisherCheck, .access]
        let cases: [(String, Manifest, String, Set<AdmissionProfile>)] = [
            ("a scene id that is not a slug", manifest(scene: "01 Castle"), "identifier", content),
            ("a Trip Pass of 2^62 hours", manifest(hours: 1 << 62), "number", content),
            ("a pack-level file named as the installed manifest", manifest(files: [".manifest.json"]), "identifier", content),
            ("a backslash in a listed path", manifest(files: ["media\\intro.mp3"]), "path", content),
            ("a creation time in 2100", manifest(created: "2100-01-01T00:00:00Z"), "clock-skew", timed),
            ("an expiry passed", manifest(expires: "2026-11-01T00:00:00Z"), "expired", timed),
            ("a version below the installed one", manifest(version: 3), "rollback", Set(AdmissionProfile.all.filter(\.judgesFloors))),
        ]
        for (what, forged, expected, judgedBy) in cases {
            let data = try signed(try CanonicalJSON.encode(forged), kind: .manifest, by: "manifest")
            for profile in AdmissionProfile.all {
                let got = code { try SignedDocument().admit(data, as: Manifest.self, profile: profile, context: AdmissionContext(root: self.root, now: self.now, floors: floors)) }
                XCTAssertEqual(got, judgedBy.contains(profile) ? expected : nil, "\(what) under \(profile)")
            }
        }
    }

    func testAnExpiredRootIsRefusedWithTheCodesOfEveryOtherSignedDocument() {
        var root = self.root
        root.expires = "2026-11-01T00:00:00Z"
        XCTAssertEqual(code { try RootChain.requireUnexpired(root, now: Date(timeIntervalSince1970: self.now)) }, "expired")
        root.expires = "next year"
        XCTAssertEqual(code { try RootChain.requireUnexpired(root, now: Date(timeIntervalSince1970: self.now)) }, "expiry")
    }

    func testAnIndexIsRefusedUnderAnExpiredRootEvenWhenItIsFresh() throws {
        var root = self.root
        root.expires = "2026-11-01T00:00:00Z"
        let index = IndexDocument(version: 1, created: "2026-11-30T00:00:00Z", expires: "2026-12-08T00:00:00Z", rootVersion: 1, packs: [:])
        let data = try signed(try CanonicalJSON.encode(index), kind: .index, by: "index")
        XCTAssertEqual(code { try SignedDocument().admit(data, as: IndexDocument.self, profile: .install, context: AdmissionContext(root: root, now: self.now)) }, "expired")
        XCTAssertNoThrow(try SignedDocument().admit(data, as: IndexDocument.self, profile: .atRest, context: AdmissionContext(root: root)))
    }

    /// An index is trusted for hashes, not paths: under every profile, a file it places outside the layout is refused.
    func testAnIndexPlacingAManifestOutsideTheLayoutIsRefusedUnderEveryProfile() throws {
        let entry = IndexDocument.Entry(version: 2, manifest: .init(path: "../../etc/passwd", size: 1, sha256: "00"),
                                        archive: .init(path: PublishLayout.archive(pack: "royal-mile", version: 2), size: 1, sha256: "00"))
        let index = IndexDocument(version: 1, created: "2026-11-30T00:00:00Z", expires: "2026-12-08T00:00:00Z", rootVersion: 1, packs: ["royal-mile": entry])
        let data = try signed(try CanonicalJSON.encode(index), kind: .index, by: "index")
        for profile in AdmissionProfile.all {
            XCTAssertEqual(code { try SignedDocument().admit(data, as: IndexDocument.self, profile: profile, context: AdmissionContext(root: self.root, now: self.now)) },
                           "index-path", "\(profile)")
        }
    }

    func testARevocationListOlderThanTheOneHeldIsRefusedOnlyWhereFloorsCount() throws {
        let list = RevocationsDocument(version: 2, created: "2026-11-30T00:00:00Z", revoked: [])
        let data = try signed(try CanonicalJSON.encode(list), kind: .revocations, by: "grant")
        let context = AdmissionContext(root: root, now: now, floors: .init(root: 1, index: 1, manifests: [:], scenes: [:], revocations: 3))
        XCTAssertEqual(code { try SignedDocument().admit(data, as: RevocationsDocument.self, profile: .install, context: context) }, "rollback")
        XCTAssertNoThrow(try SignedDocument().admit(data, as: RevocationsDocument.self, profile: .publisherCheck, context: context))
    }
}
