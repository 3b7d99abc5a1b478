import FuzzSupport
import LabStore

// The Daniş importer: one input holds the configuration (cnf/tetam.dev, cnf/tetam.par) and one or two tracks
// (trk/a_all_sensors.mbd, trk/b_all_sensors.mbd), each after a line `=== NAME`.
runFuzzer { data, size in
    guard let data else { return 0 }
    let tracks = ["trk/a_all_sensors.mbd", "trk/b_all_sensors.mbd"]
    fuzzImport("danis", format: .danis, input: UnsafeRawBufferPointer(start: data, count: size),
               allowed: Set(tracks + ["cnf/tetam.dev", "cnf/tetam.par"]),
               paths: { dir, files in
                   let present = tracks.filter(files.contains)
                   return (present.isEmpty ? [tracks[0]] : present).map { dir + "/" + $0 }
               },
               options: { dir, _ in ImportOptions(configDirectory: dir + "/cnf") })
    return 0
}
