import Foundation
import FuzzSupport
import LabCore
import LabScenarioIO
import LabStore

// The recording reader, two ways, chosen by the input's first byte:
// - bytes (first byte divisible by 8): the rest of the input is the file, as a user might hand any file to
//   `replay`; libFuzzer's mutations of the seed recordings mostly meet SQLite's own checks;
// - edits (otherwise): the rest is a list of SQL edits applied to a small valid recording made at start-up —
//   a value of any type (NULL, integers, any IEEE double incl. NaN and ±∞, text, blobs) written into any
//   column of any row of any table, rows deleted, a table dropped, the user version changed — so every
//   check of the reader's own (types, ranges, the venue, the schema) is reached.
// Either way `RecordingStore.read` must throw an input error or return a recording that the epoch builder
// (what replay, calibrate and --update-baseline run first) turns into epochs without trapping.

// `INDOORLAB_FUZZ_WRITE_SEEDS=DIR` writes the seeds instead: the template as a file, and the template unedited.
if let dir = ProcessInfo.processInfo.environment["INDOORLAB_FUZZ_WRITE_SEEDS"] {
    Scratch.write([0] + [UInt8](Template.shared.bytes), to: dir + "/file")
    Scratch.write([1], to: dir + "/unedited")
    exit(0)
}

runFuzzer { data, size in
    guard let data, size > 0 else { return 0 }
    let path = Scratch.root + "/input.sqlite"
    unlink(path)
    let rest = UnsafeBufferPointer(start: data + 1, count: size - 1)
    if data[0] % 8 == 0 {
        Scratch.write(rest, to: path)
    } else {
        Template.shared.copy(to: path)
        Template.shared.apply(edits: rest, to: path)
    }
    expectOnlyInputErrors("recording") {
        let r = try RecordingStore.read(path: path)
        _ = EpochBuilder(venue: r.venue.venue).epochs(r)
    }
    return 0
}
