import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackCrypto
import PackFiles
import TestSupport
import XCTest

/// `DigestMemory`: a file's remembered digest is used only while the file is provably the one hashed. Each test
/// forges the remembered digest (as no real hashing could produce it) to tell a reused digest from a fresh one.
final class DigestMemoryTests: XCTestCase {
    private let forged = String(repeating: "ab", count: 32)

    /// Whether files in `folder` have times that move with every write (`WriteTracking`).
    private static func tracksWrites(_ folder: String) -> Bool {
        let probe = folder + "/probe"
        guard FileManager.default.createFile(atPath: probe, contents: Data("x".utf8)) else { return false }
        defer { try? FileManager.default.removeItem(atPath: probe) }
        let fd = open(probe, O_RDONLY)
        defer { close(fd) }
        return fd >= 0 && WriteTracking.settle(fd)
    }

    /// A scratch folder on a file system whose times track writes: the temporary folder, or one beside the build (a
    /// CI machine's /tmp may be tmpfs, where nothing is remembered by design).
    private func trackedScratch() throws -> String {
        let temporary = try temporaryDirectory()
        if Self.tracksWrites(temporary) { return temporary }
        let beside = Repository.root.appendingPathComponent(".build/test-scratch/\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: beside, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: beside) }
        guard Self.tracksWrites(beside) else {
            // CI (which sets this) runs these on Linux whatever its /tmp is: a skip there would hide every case above.
            #if os(Linux)
            if ProcessInfo.processInfo.environment["PACKTOOL_REQUIRE_SHARED_TESTDATA"] == "1" {
                XCTFail("CI needs .build on ext4, XFS or Btrfs to prove the digest memory")
            }
            #endif
            throw XCTSkip("neither the temporary folder nor .build is on ext4, XFS or Btrfs: nothing is remembered there")
        }
        return beside
    }

    /// A scene folder with two files, one named with a leading combining mark (which joins a space before it into one
    /// Character), and a memory folder beside it.
    private func scene(in root: String? = nil) throws -> (folder: URL, memory: String) {
        let root = URL(fileURLWithPath: try root ?? trackedScratch())
        let folder = root.appendingPathComponent("stop")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("layers"), withIntermediateDirectories: true)
        try Data("plate".utf8).write(to: folder.appendingPathComponent("layers/a.heic"))
        try Data("mark".utf8).write(to: folder.appendingPathComponent("\u{301}b.txt"))
        return (folder, root.appendingPathComponent("memory").path)
    }

    private func digest(_ folder: URL, _ memory: DigestMemory, excluding: Set<String> = []) throws -> [String: String] {
        let digest = try TreeDigest.of(folders: [folder], excluding: excluding, memory: memory)[0].get()
        return Dictionary(uniqueKeysWithValues: digest.entries.map { ($0.path, $0.sha256) })
    }

    private func memoryFile(_ memory: String) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: memory)
        XCTAssertEqual(names.count, 1, "one memory file per scene folder")
        return URL(fileURLWithPath: memory).appendingPathComponent(names[0])
    }

    /// Replaces the remembered digest of every file with `forged`, leaving identities and times as they are.
    private func forge(_ memory: String) throws {
        let url = try memoryFile(memory)
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let forgedLines = lines.enumerated().map { i, line in i == 0 || line.isEmpty || line.hasPrefix("origin ") ? String(line) : forged + line.dropFirst(64) }
        try forgedLines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    func testAFileUnchangedSinceItSettledIsNotReadAgain() throws {
        let (folder, path) = try scene()
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        let first = try digest(folder, memory)
        XCTAssertEqual(first["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)))
        try forge(path)
        let second = try digest(folder, memory)
        XCTAssertEqual(second["layers/a.heic"], forged, "the remembered digest was used: the file was not read")
        XCTAssertEqual(second["\u{301}b.txt"], forged, "a name beginning with a combining mark is remembered too")
    }

    func testAFileWrittenSinceItWasHashedIsHashedAgainEvenWithItsTimePutBack() throws {
        let (folder, path) = try scene()
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        let file = folder.appendingPathComponent("layers/a.heic")
        _ = try digest(folder, memory)
        let modified = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as! Date
        try forge(path)
        Thread.sleep(forTimeInterval: 0.02)
        try Data("PLATE".utf8).write(to: file)  // same size
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)  // as `touch -d` would
        let second = try digest(folder, memory)
        XCTAssertEqual(second["layers/a.heic"], SHA256.hexHash(Array("PLATE".utf8)), "the change time moved, so the file was read")
        XCTAssertEqual(second["\u{301}b.txt"], forged, "the file left alone is still remembered")
    }

    func testAFileThatChangedCloseToItsHashingIsHashedAgain() throws {
        let (folder, path) = try scene()
        _ = try digest(folder, DigestMemory(folder: path, settleSeconds: 0))
        try forge(path)
        // Files written a moment before they were hashed: within the settle time, as a write in the same tick of a
        // coarse clock would be, so what was remembered is not trusted (nor, with this settle time, remembered).
        let second = try digest(folder, DigestMemory(folder: path, settleSeconds: 3600))
        XCTAssertEqual(second["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)))
        XCTAssertEqual(second["\u{301}b.txt"], SHA256.hexHash(Array("mark".utf8)))
    }

    func testADamagedMemoryIsIgnoredAndWrittenAfresh() throws {
        let (folder, path) = try scene()
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        _ = try digest(folder, memory)
        let url = try memoryFile(path)
        let damaged = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: " layers/a.heic", with: "")
        try damaged.write(to: url, atomically: true, encoding: .utf8)
        try forge(path)  // every line forged, one of them cut short: the file as a whole is not used
        let second = try digest(folder, memory)
        XCTAssertEqual(second["\u{301}b.txt"], SHA256.hexHash(Array("mark".utf8)))
        XCTAssertTrue(try String(contentsOf: url, encoding: .utf8).contains(" layers/a.heic\n"), "written again whole")
        try forge(path)
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], forged, "and used again")
    }

    func testWhatADigestLeavesOutStaysRemembered() throws {
        let (folder, path) = try scene()
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        _ = try digest(folder, memory)
        try forge(path)
        // Lint leaves signoff.json out of a sign-off's digest; sign hashes it: neither forgets what the other read.
        XCTAssertNil(try digest(folder, memory, excluding: ["layers/a.heic"])["layers/a.heic"])
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], forged)
    }

    func testAFileDatedPastTheYear2262IsHashedNotATrap() throws {
        // Nanoseconds since 1970 pass Int64 in 2262; `touch -d 2300-01-01` is enough to get there.
        let (folder, path) = try scene()
        let file = folder.appendingPathComponent("layers/a.heic")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 10_413_792_000)], ofItemAtPath: file.path)
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)))
        try forge(path)
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)),
                       "a file dated after its hashing is never trusted")
    }

    func testAMemoryHashedAtTheStartOfTimeIsNotATrap() throws {
        let (folder, path) = try scene()
        let memory = DigestMemory(folder: path, settleSeconds: 2)
        _ = try digest(folder, DigestMemory(folder: path, settleSeconds: 0))
        try forge(path)
        let url = try memoryFile(path)
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { line -> String in
            var fields = line.split(separator: " ", maxSplits: 7).map(String.init)
            if fields.count == 8 { fields[6] = String(Int64.min) }
            return fields.joined(separator: " ")
        }
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)))
    }

    /// The attack's case: a shared mapping writes the file (its times move on that first write), the file is hashed,
    /// then the same mapping writes again. Its page was still dirty, so that write moved no time and the memory
    /// vouched for the old bytes: lint passed a changed signed-off scene and sign published a hash no phone accepts.
    /// Pages are now flushed before the identity is taken, so the second write faults and moves the times.
    func testAWriteThroughAMappingAfterTheHashingIsSeen() throws {
        let (folder, path) = try scene()
        let file = folder.appendingPathComponent("layers/a.heic").path
        let fd = open(file, O_RDWR)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let map = try XCTUnwrap(mmap(nil, 5, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)).assumingMemoryBound(to: UInt8.self)
        XCTAssertNotEqual(UnsafeMutableRawPointer(map), MAP_FAILED)
        defer { munmap(map, 5) }
        map[0] = UInt8(ascii: "p")  // the same byte: the page is dirty, the times moved
        Thread.sleep(forTimeInterval: 0.05)
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)))
        Thread.sleep(forTimeInterval: 0.05)
        map[0] = UInt8(ascii: "P")  // through the same mapping
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("Plate".utf8)))
    }

    func testNothingIsRememberedOnTmpfs() throws {
        let shm = "/dev/shm"
        guard FileManager.default.fileExists(atPath: shm), !Self.tracksWrites(shm) else { throw XCTSkip("no tmpfs at /dev/shm") }
        let root = shm + "/packtool-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (folder, path) = try scene(in: root)
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)))
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [], [], "a mapped page there never goes back to disk: nothing to remember")
    }

    func testAMemoryFolderOthersCanWriteToIsNotUsed() throws {
        let (folder, path) = try scene()
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        _ = try digest(folder, memory)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, 0o700)
        try forge(path)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path)
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)), "a shared folder's entries could be anyone's")
    }

    func testAMemoryFileWithASecondNameIsNotUsed() throws {
        let (folder, path) = try scene()
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        _ = try digest(folder, memory)
        try forge(path)
        try FileManager.default.linkItem(atPath: try memoryFile(path).path, toPath: folder.deletingLastPathComponent().appendingPathComponent("second-name").path)
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)))
    }

    func testALinkAtTheMemoryFoldersNameIsNotFollowed() throws {
        let (folder, path) = try scene()
        let elsewhere = folder.deletingLastPathComponent().appendingPathComponent("elsewhere").path
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
        XCTAssertEqual(try digest(folder, DigestMemory(folder: path, settleSeconds: 0))["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [], "nothing written through the link")
    }

    /// The second attack's case: a file changed in place and its data flushed, then a power cut before the journal
    /// committed its new times. After the reboot the disk holds new bytes with the old times, which the memory
    /// vouched for. A memory made in another boot (or on another mount of the file system) is not used.
    func testAMemoryMadeInAnotherBootOrMountIsNotUsed() throws {
        let (folder, path) = try scene()
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        _ = try digest(folder, memory)
        try forge(path)
        let url = try memoryFile(path)
        let text = try String(contentsOf: url, encoding: .utf8)
        let origin = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("origin ") })
        XCTAssertEqual(origin.split(separator: " ").count, 3, "origin <boot id> <mount id>: \(origin)")
        for other in ["origin 00000000-0000-0000-0000-000000000000 " + origin.split(separator: " ")[2], origin.split(separator: " ").dropLast().joined(separator: " ") + " 999999"] {
            try text.replacingOccurrences(of: String(origin), with: other).write(to: url, atomically: true, encoding: .utf8)
            XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)), other)
            try forge(path)
        }
    }

    /// The review's case: a file name holding "\r\n" (one Character, equal to neither "\r" nor "\n", so a Character
    /// check let it through) followed by a whole memory line planted a forged digest for another file of the scene.
    func testAFileNameCannotPlantALineInTheMemory() throws {
        let (folder, path) = try scene()
        let target = folder.appendingPathComponent("a.txt")
        try Data("honest".utf8).write(to: target)
        var info = stat()
        XCTAssertEqual(stat(target.path, &info), 0)
        #if canImport(Darwin)
        let (m, c) = (info.st_mtimespec, info.st_ctimespec)
        #else
        let (m, c) = (info.st_mtim, info.st_ctim)
        #endif
        let modified = Int64(m.tv_sec) * 1_000_000_000 + Int64(m.tv_nsec)
        let changed = Int64(c.tv_sec) * 1_000_000_000 + Int64(c.tv_nsec)
        let planted = "z\r\n\(forged) \(info.st_dev) \(info.st_ino) \(info.st_size) \(modified) \(changed) \(changed + 1) a.txt"
        try Data().write(to: folder.appendingPathComponent(planted))
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        _ = try digest(folder, memory)
        XCTAssertFalse(try Data(contentsOf: try memoryFile(path)).contains(13), "no carriage return reaches the memory")
        XCTAssertEqual(try digest(folder, memory)["a.txt"], SHA256.hexHash(Array("honest".utf8)))
    }

    func testAMemoryNotWrittenForThirtyDaysIsRemovedWhenAnotherIsWritten() throws {
        let (folder, path) = try scene()
        let memory = DigestMemory(folder: path, settleSeconds: 0)
        _ = try digest(folder, memory)
        let stale = URL(fileURLWithPath: path).appendingPathComponent("1-2.txt").path
        let recent = URL(fileURLWithPath: path).appendingPathComponent("3-4.txt").path
        for file in [stale, recent] { XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("x".utf8))) }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-31 * 86_400)], ofItemAtPath: stale)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-29 * 86_400)], ofItemAtPath: recent)
        try Data("more".utf8).write(to: folder.appendingPathComponent("new.txt"))  // something to remember: a write
        _ = try digest(folder, memory)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertTrue(FileManager.default.fileExists(atPath: recent))
    }

    func testAMemoryThatCannotBeWrittenIsNoError() throws {
        let (folder, _) = try scene()
        let blocker = folder.deletingLastPathComponent().appendingPathComponent("not-a-folder")
        try Data().write(to: blocker)
        let memory = DigestMemory(folder: blocker.path, settleSeconds: 0)
        XCTAssertEqual(try digest(folder, memory)["layers/a.heic"], SHA256.hexHash(Array("plate".utf8)))
    }
}
