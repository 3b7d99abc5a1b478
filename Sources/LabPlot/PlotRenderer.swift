internal import CPLplot
import Foundation
import LabCore
import LabStore

/// A figure could not be written (the directory is not writable, a driver is missing, PLplot wrote nothing).
public struct PlotError: Error, Sendable, CustomStringConvertible, Equatable {
    public var path: String
    public var message: String
    public init(path: String, _ message: String) { self.path = path; self.message = message }
    public var description: String { "\(path): \(message)" }
}

/// The one owner of PLplot. PLplot keeps global state (the current stream, colour maps, the output file),
/// so every figure is drawn under one lock, from `plinit` to `plend`; callers may be concurrent.
///
/// Each format is written to a temporary file in the target directory and renamed into place only
/// when every format of the figure has been drawn: a failure leaves no partial or stale-new file, and one a killed
/// run left (``PartialFiles``) is removed by the next figure drawn there.
public final class PlotRenderer: Sendable {
    /// The renderer every caller shares.
    public static let shared = PlotRenderer()

    /// Page size: pixels for PNG, points for SVG.
    public let width: Int
    public let height: Int

    private let lock = NSLock()

    init(width: Int = 1000, height: Int = 750) {
        self.width = width
        self.height = height
    }

    /// Draws `figure` once per format to `basePath.<ext>` (e.g. `Plots/open-hall-cdf.png` and `.svg`).
    /// - Returns: the paths written, in the order of `formats`.
    /// - Throws: ``PlotError`` when a file cannot be written; nothing is left behind then.
    @discardableResult
    public func render(_ figure: any Figure, to basePath: String, formats: [PlotFormat] = [.png, .svg]) throws -> [String] {
        guard let drawable = figure as? any CanvasDrawable else {
            preconditionFailure("\(type(of: figure)) is not a LabPlot figure type")
        }
        let url = URL(fileURLWithPath: basePath)
        let dir = url.deletingLastPathComponent()
        if let problem = createDirectories(dir.path) { throw PlotError(path: dir.path, "cannot create the output directory: \(problem)") }
        let unique = "-" + UUID().uuidString.prefix(8)
        var written: [(temp: String, final: String)] = []
        defer { for w in written { unlink(w.temp) } }   // no-op for files already renamed

        var seen = Set<PlotFormat>()
        for format in formats where seen.insert(format).inserted {
            let final = basePath + "." + format.fileExtension
            let finalName = url.lastPathComponent + "." + format.fileExtension
            PartialFiles.removeStale(in: dir.path, writing: finalName)
            let temp = dir.path + "/" + PartialFiles.name(for: finalName, tag: unique)
            // PLplot exits the process when it cannot open its output: find out first, in Swift.
            guard FileManager.default.createFile(atPath: temp, contents: nil) else {
                throw PlotError(path: final, "cannot write in \(dir.path)")
            }
            written.append((temp, final))
            try draw(drawable, format: format, to: temp)
            // PLplot and cairo do not report their write errors: a full disk leaves a file cut short. Only a whole
            // file, on the disk, replaces the figure.
            if let problem = Self.incompleteness(ofFigureAt: temp, format: format) {
                throw PlotError(path: final, "\(problem) (device \(format.device)); the figure there is left as it was")
            }
        }
        for w in written where rename(w.temp, w.final) != 0 {
            throw PlotError(path: w.final, "cannot move the finished figure into place: \(String(cString: strerror(errno)))")
        }
        return written.map(\.final)
    }

    /// Why the figure PLplot wrote at `path` is not whole, or nil when it is: a PNG ends with its IEND chunk, an SVG with
    /// `</svg>`, and the file reaches the disk (fsync). Each figure file is written once, by one PLplot stream.
    static func incompleteness(ofFigureAt path: String, format: PlotFormat) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "cannot read the figure back: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        let size = lseek(fd, 0, SEEK_END)
        guard size > 0 else { return "PLplot wrote nothing" }
        let tailLength = min(Int(size), 64)
        var tail = [UInt8](repeating: 0, count: tailLength)
        guard pread(fd, &tail, tailLength, off_t(Int(size) - tailLength)) == tailLength else {
            return "cannot read the figure back: \(String(cString: strerror(errno)))"
        }
        guard isWhole(tail: tail, format: format) else {
            return "the figure was cut short (\(size) bytes, no \(format == .svg ? "</svg>" : "IEND chunk") at its end): the disk is full, or the write failed"
        }
        guard fsync(fd) == 0 else { return "the figure could not reach the disk: \(String(cString: strerror(errno)))" }
        return nil
    }

    /// Whether `tail`, a figure file's last bytes, ends it as a whole file of `format` does.
    static func isWhole(tail: [UInt8], format: PlotFormat) -> Bool {
        switch format {
        case .png:
            // The IEND chunk: length 0, type "IEND", CRC AE 42 60 82.
            let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
            return tail.count >= iend.count && Array(tail.suffix(iend.count)) == iend
        case .svg:
            var end = tail[...]
            while let last = end.last, last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 { end = end.dropLast() }
            return end.count >= 6 && Array(end.suffix(6)) == Array("</svg>".utf8)
        }
    }

    /// The PLplot devices compiled in and installed (e.g. "pngcairo", "svg").
    public var availableDevices: [String] {
        lock.lock(); defer { lock.unlock() }
        return Self.devices()
    }

    private static func devices() -> [String] {
        var n: Int32 = 100
        var menu = [UnsafePointer<CChar>?](repeating: nil, count: Int(n))
        var names = [UnsafePointer<CChar>?](repeating: nil, count: Int(n))
        menu.withUnsafeMutableBufferPointer { m in
            names.withUnsafeMutableBufferPointer { d in
                var mp = m.baseAddress, dp = d.baseAddress
                plgDevs(&mp, &dp, &n)
            }
        }
        return names.prefix(Int(n)).compactMap { $0.map { String(cString: $0) } }
    }

    private func draw(_ figure: any CanvasDrawable, format: PlotFormat, to path: String) throws {
        lock.lock(); defer { lock.unlock() }
        guard Self.devices().contains(format.device) else {
            throw PlotError(path: path, "PLplot has no '\(format.device)' device (install plplot-driver-cairo for PNG)")
        }
        c_plsdev(format.device)
        c_plsfnam(path)
        c_plspage(0, 0, Int32(width), Int32(height), 0, 0)
        c_plspause(0)
        // White background and dark ink before plinit: PLplot's defaults are red on black.
        c_plscmap0n(Canvas.colorSlots)
        c_plscolbg(255, 255, 255)
        c_plscol0(0, 255, 255, 255)
        c_plscol0(1, 26, 26, 26)
        c_plinit()
        var canvas = Canvas(format: format)
        figure.draw(on: &canvas)
        c_plend()
    }
}
