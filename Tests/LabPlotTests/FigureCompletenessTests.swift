import Foundation
import Testing
@testable import LabPlot

/// What tells a whole figure file from one a full disk cut short (``PlotRenderer/isWhole(tail:format:)``): a PNG ends
/// with its IEND chunk, an SVG with `</svg>`.
@Suite struct FigureCompletenessTests {
    static let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]

    @Test func aPNGIsWholeOnlyWithItsEndChunk() {
        #expect(PlotRenderer.isWhole(tail: [1, 2, 3] + Self.iend, format: .png))
        #expect(!PlotRenderer.isWhole(tail: [1, 2, 3] + Self.iend.dropLast(), format: .png), "a cut CRC")
        #expect(!PlotRenderer.isWhole(tail: Array(Self.iend.dropFirst(4)), format: .png), "too short to hold the chunk")
        #expect(!PlotRenderer.isWhole(tail: [0x89, 0x50, 0x4E, 0x47], format: .png), "a header and nothing more")
    }

    @Test func anSVGIsWholeOnlyWhenItClosesItsRoot() {
        #expect(PlotRenderer.isWhole(tail: Array("<g></g>\n</svg>\n".utf8), format: .svg))
        #expect(PlotRenderer.isWhole(tail: Array("</svg>".utf8), format: .svg))
        #expect(!PlotRenderer.isWhole(tail: Array("<g></g>\n</sv".utf8), format: .svg), "cut inside the closing tag")
        #expect(!PlotRenderer.isWhole(tail: Array("<text>a</text>\n".utf8), format: .svg))
        #expect(!PlotRenderer.isWhole(tail: [], format: .svg))
    }

    @Test func theRendererChecksWhatItWroteAndACutFileIsRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("indoorlab-whole-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = dir.appendingPathComponent("whole.svg").path, cut = dir.appendingPathComponent("cut.svg").path
        try Data("<svg>\n<g></g>\n</svg>\n".utf8).write(to: URL(fileURLWithPath: whole))
        try Data("<svg>\n<g></g>\n</s".utf8).write(to: URL(fileURLWithPath: cut))
        #expect(PlotRenderer.incompleteness(ofFigureAt: whole, format: .svg) == nil)
        let problem = try #require(PlotRenderer.incompleteness(ofFigureAt: cut, format: .svg))
        #expect(problem.contains("cut short") && problem.contains("no </svg>"), "\(problem)")
        try Data().write(to: URL(fileURLWithPath: cut))
        #expect(PlotRenderer.incompleteness(ofFigureAt: cut, format: .svg) == "PLplot wrote nothing")
    }
}
