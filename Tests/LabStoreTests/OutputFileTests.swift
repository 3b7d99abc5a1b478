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

    @Test func aDirectoryIsNotAnOutputFile() throws {
        let dir = try temporaryDirectory("out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: InputError(file: dir, "is a directory; give a file name")) { try OutputFile.write(Data("x".utf8), to: dir) }
    }
}
