import Foundation
import LabCore
import Testing
@testable import LabStore

/// Output files: links written through, permissions kept, a directory refused (IndoorlabCLITests' OutputFileTests: the
/// commands' outputs).
@Suite struct OutputFileTests {
    @Test func aSymbolicLinkIsWrittenThrough() throws {
        let dir = try temporaryDirectory("out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        symlink("real.csv", dir + "/link.csv")   // dangling: writing creates the target
        try OutputFile.write(Data("one\n".utf8), to: dir + "/link.csv")
        try OutputFile.write(Data("two\n".utf8), to: dir + "/link.csv")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.csv") == "real.csv", "the link stays a link")
        #expect(try String(contentsOfFile: dir + "/real.csv", encoding: .utf8) == "two\n")
        #expect(listing(dir) == ["link.csv", "real.csv"], "no temporary file left")
    }

    @Test func aReplacedFileKeepsItsPermissions() throws {
        let dir = try temporaryDirectory("out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/x.csv"
        try OutputFile.write(Data("a".utf8), to: path)
        chmod(path, 0o640)
        try OutputFile.write(Data("b".utf8), to: path)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o640)
    }

    /// A container reuses pids: a killed run that had this process's pid left partial files under the names this
    /// process is about to take. The write takes the next free name, and the leftovers stay for their own cleanup.
    @Test func aPartialNameTakenByAnEarlierProcessWithThisPidIsSkipped() throws {
        let dir = try temporaryDirectory("out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let next = OutputFile.counter.last + 1
        let taken = (next..<next + 8).map { PartialFiles.name(for: "x.csv", tag: "-\($0)") }
        for f in taken { try "half".write(toFile: dir + "/" + f, atomically: false, encoding: .utf8) }
        try OutputFile.write(Data("whole\n".utf8), to: dir + "/x.csv")
        #expect(try String(contentsOfFile: dir + "/x.csv", encoding: .utf8) == "whole\n")
        #expect(listing(dir) == (taken + ["x.csv"]).sorted(), "\(listing(dir))")
    }

    @Test func aDirectoryIsNotAnOutputFile() throws {
        let dir = try temporaryDirectory("out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: InputError(file: dir, "is a directory; give a file name")) { try OutputFile.write(Data("x".utf8), to: dir) }
    }
}

/// What killed runs leave (``PartialFiles``): the next write into the directory removes it.
@Suite struct PartialFilesTests {
    @Test func aKilledWritersPartialFileIsRemovedByTheNextWrite() throws {
        let dir = try temporaryDirectory("out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A pid far above pid_max (4194304) belongs to no process.
        let dead: Int32 = 99_999_999
        let same = PartialFiles.name(for: "x.csv", pid: dead, tag: "-1")
        let legacy = PartialFiles.legacyOutputPrefix + "\(dead)-7"   // what earlier versions left
        let other = PartialFiles.name(for: "y.csv", pid: dead, tag: "-2")
        let recent = PartialFiles.name(for: "z.csv", pid: dead, tag: "-3")
        let live = PartialFiles.name(for: "x.csv", pid: getppid(), tag: "-4")
        for f in [same, legacy, other, recent, live] { try "half".write(toFile: dir + "/" + f, atomically: false, encoding: .utf8) }
        let hourAgo = Date(timeIntervalSinceNow: -3600)
        for f in [legacy, other] { try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: dir + "/" + f) }
        try OutputFile.write(Data("whole\n".utf8), to: dir + "/x.csv")
        // The same file's leftover goes at once; another name's once unchanged for a while (its writer may live in
        // another PID namespace); a live writer's stays.
        #expect(listing(dir) == [live, recent, "x.csv"].sorted(), "\(listing(dir))")
    }

    @Test func partialNamesKeepTheirWriterAndFitNAMEMAX() {
        #expect(PartialFiles.writer(of: PartialFiles.name(for: "r.sqlite", pid: 42)) == 42)
        #expect(PartialFiles.writer(of: PartialFiles.name(for: "r.sqlite", pid: 42) + "-journal") == 42)
        #expect(PartialFiles.writer(of: PartialFiles.name(for: "a.png", pid: 7, tag: "-0A1B2C3D")) == 7)
        #expect(PartialFiles.writer(of: ".indoorlab-output-9-1") == 9)
        for notOurs in ["r.sqlite", ".r.sqlite.partial-", ".r.sqlite.partial-12x", ".hidden", ".r.partial-0"] {
            #expect(PartialFiles.writer(of: notOurs) == nil, "\(notOurs)")
        }
        let longest = String(repeating: "é", count: 127)  // 254 bytes
        #expect(PartialFiles.name(for: longest, pid: Int32.max, tag: "-12345678").utf8.count + "-journal".utf8.count <= 255)
    }
}
