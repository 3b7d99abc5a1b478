import FuzzSupport
import LabStore

// The UJI importer: one input holds dep/geo.csv, rss/geo_{ids,crd,rss}.csv and optionally obs/geo.csv (then the
// obstacles are imported as walls), each after a line `=== NAME`. The Tx power is −4, −12 or −20 dBm by the
// input's length, so all three selections are reached.
runFuzzer { data, size in
    guard let data else { return 0 }
    fuzzImport("uji", format: .uji, input: UnsafeRawBufferPointer(start: data, count: size),
               allowed: ["dep/geo.csv", "rss/geo_ids.csv", "rss/geo_crd.csv", "rss/geo_rss.csv", "obs/geo.csv"],
               paths: { dir, _ in [dir] },
               options: { _, files in
                   var o = ImportOptions(txPower: [-4, -12, -20][size % 3])
                   o.obstacles = files.contains("obs/geo.csv")
                   return o
               })
    return 0
}
