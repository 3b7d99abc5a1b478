/// Dense n×n matrices as row-major `[Double]`: the few operations the trackers' 5-state filter and smoother need
/// (the fits' 2×2 and 3×3 algebra is written out in closed form where it is used).
package enum SmallMatrix {
    /// C = A·B (n×n), into `c` (which must not be `a` or `b`).
    package static func multiply(_ a: [Double], _ b: [Double], n: Int, into c: inout [Double]) {
        for i in 0..<n {
            for j in 0..<n {
                var sum = 0.0
                for k in 0..<n { sum += a[i * n + k] * b[k * n + j] }
                c[i * n + j] = sum
            }
        }
    }

    /// C = A·Bᵀ (n×n), into `c`.
    package static func multiplyTransposed(_ a: [Double], _ b: [Double], n: Int, into c: inout [Double]) {
        for i in 0..<n {
            for j in 0..<n {
                var sum = 0.0
                for k in 0..<n { sum += a[i * n + k] * b[j * n + k] }
                c[i * n + j] = sum
            }
        }
    }

    /// A⁻¹ by Gauss–Jordan elimination with partial pivoting; nil when a pivot is below 1e-12 of the largest
    /// diagonal entry (singular to working precision).
    package static func inverse(_ a: [Double], n: Int) -> [Double]? {
        var m = a
        var inv = [Double](repeating: 0, count: n * n)
        for i in 0..<n { inv[i * n + i] = 1 }
        var scale = 0.0
        for i in 0..<n { scale = max(scale, abs(a[i * n + i])) }
        guard scale > 0, scale.isFinite else { return nil }
        for col in 0..<n {
            var pivot = col
            for r in col + 1..<n where abs(m[r * n + col]) > abs(m[pivot * n + col]) { pivot = r }
            guard abs(m[pivot * n + col]) > 1e-12 * scale else { return nil }
            if pivot != col {
                for k in 0..<n { m.swapAt(col * n + k, pivot * n + k); inv.swapAt(col * n + k, pivot * n + k) }
            }
            let d = m[col * n + col]
            for k in 0..<n { m[col * n + k] /= d; inv[col * n + k] /= d }
            for r in 0..<n where r != col {
                let f = m[r * n + col]
                if f == 0 { continue }
                for k in 0..<n { m[r * n + k] -= f * m[col * n + k]; inv[r * n + k] -= f * inv[col * n + k] }
            }
        }
        return inv
    }

    /// Replaces A by (A + Aᵀ)/2.
    package static func symmetrise(_ a: inout [Double], n: Int) {
        for i in 0..<n {
            for j in i + 1..<n {
                let v = (a[i * n + j] + a[j * n + i]) / 2
                a[i * n + j] = v; a[j * n + i] = v
            }
        }
    }
}
