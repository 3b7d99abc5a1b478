import Foundation
import Testing

/// A figure is replaced only by a whole one: on a full disk, PLplot and cairo cut the file short without telling,
/// and `plot` must then exit 2 and leave the figure that was there. The disk is a small tmpfs mounted in a private
/// mount namespace (`unshare --mount`, as root, as CI runs), filled to a few kilobytes of free space.
@Suite struct FullDiskTests {
    /// Runs `script` with sh in a private mount namespace; nil when this machine cannot make one (not root).
    static func inPrivateMounts(_ script: String) throws -> Run? {
        guard getuid() == 0 else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        p.arguments = ["--mount", "--propagation", "private", "sh", "-c", script]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func aFigureOnAFullDiskFailsAndLeavesTheOldOne() throws {
        let bin = builtProduct("indoorlab").path
        let dir = try temporaryDirectory("full-disk")
        defer { try? FileManager.default.removeItem(at: dir) }
        // 1. Draw the figure on an empty 512 KiB disk; 2. fill the disk to 8 KiB free; 3. draw it again, PNG alone and
        // SVG alone (each format on its own: with both, the second's failure would hide the first's cut file).
        let script = """
            set -u
            D=\(dir.path)/disk
            mkdir -p "$D" && mount -t tmpfs -o size=512k tmpfs "$D" || exit 90
            cd \(root.path)
            \(bin) plot crlb --scenario open-hall --out-dir "$D" >/dev/null || exit 91
            before=$(md5sum "$D/open-hall-crlb.png" "$D/open-hall-crlb.svg")
            free=$(df --output=avail -k "$D" | tail -1)
            dd if=/dev/zero of="$D/filler" bs=1k count=$((free - 8)) 2>/dev/null
            \(bin) plot crlb --scenario open-hall --out-dir "$D" --format png >/dev/null 2>"$D.err"
            png=$?
            \(bin) plot crlb --scenario open-hall --out-dir "$D" --format svg >/dev/null 2>>"$D.err"
            svg=$?
            after=$(md5sum "$D/open-hall-crlb.png" "$D/open-hall-crlb.svg")
            leftovers=$(ls -A "$D" | grep -c partial-)
            echo "png=$png svg=$svg"
            echo "same=$([ "$before" = "$after" ] && echo yes || echo no)"
            echo "leftovers=$leftovers"
            cat "$D.err"
            """
        guard let r = try Self.inPrivateMounts(script) else {
            Issue.record("this test needs root to mount a small disk (CI runs as root)")
            return
        }
        #expect(!["90", "91"].contains(String(r.status)), "setting up the disk failed: \(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("png=2 svg=2"), "plot on a full disk exits 2: \(r.stdout)")
        #expect(r.stdout.contains("same=yes"), "the figures already there stay as they were: \(r.stdout)")
        #expect(r.stdout.contains("leftovers=0"), "no temporary file is left: \(r.stdout)")
        #expect(r.stdout.contains("open-hall-crlb.png: the figure was cut short"), "the error names the cut PNG: \(r.stdout)")
        #expect(r.stdout.contains("open-hall-crlb.svg: the figure was cut short") || r.stdout.contains("open-hall-crlb.svg: PLplot wrote nothing"),
                "the error names the SVG that could not be written whole: \(r.stdout)")
    }
}
