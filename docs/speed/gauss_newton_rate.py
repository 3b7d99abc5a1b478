#!/usr/bin/env python3
"""Why an offset-free fix takes about ten Levenberg-Marquardt iterations (docs/speed.md).

A numpy replica of the lab's solver (LocatorEngine's LevenbergMarquardt, which follows GSL's trust-region `lm` with
More scaling step for step) on open-hall's eight beacons: x, y and the phone's offset delta from RSSI window means
(sigma 4 dB over 9 readings). It prints how much of the error each plain Gauss-Newton step leaves (steps 2 to 6,
against the converged minimum); then, for GSL's relative step test |v_j| < xtol^2 + xtol*|x_j| at several xtol, the
mean iterations per fix and how far the fixes stop from the converged minimum; then the same for a start from a
linearised trilateration with an unknown range scale instead of the power-weighted centroid; then with delta
eliminated in closed form (variable projection: two unknowns, the residuals minus their mean).

    python3 docs/speed/gauss_newton_rate.py

Deterministic (numpy's default_rng, seed 1). Needs numpy.
"""
import numpy as np

BEACONS = np.array([[1.5, 1.5], [15, 1.5], [28.5, 1.5], [28.5, 18.5], [15, 18.5], [1.5, 18.5], [9, 10], [21, 10]])
P0, N, HEIGHT = -59.0, 2.0, 0.0   # open-hall's beacons hang at the phone's height


def distance(p):
    return np.sqrt(((BEACONS - p) ** 2).sum(1) + HEIGHT * HEIGHT)


def levenberg_marquardt(residuals, jacobian, x, xtol, gtol=1e-9, max_iterations=100):
    """GSL's trust-region driver with the lm subproblem, More scaling and Nielsen's damping; (answer, iterations)."""
    f = residuals(x); J = jacobian(x); A = J.T @ J; g = J.T @ f
    D = np.sqrt(np.maximum(np.diag(A), 1e-300)); mu = 1e-3; nu = 2.0
    iteration = 0
    for iteration in range(1, max_iterations + 1):
        norm_f = np.linalg.norm(f); progressed = False; refusals = 0
        while True:
            v = np.linalg.solve(A + mu * np.diag(D * D), -g)
            ft = residuals(x + v); norm_t = np.linalg.norm(ft); rho = -1.0
            if norm_t < norm_f:
                predicted = (np.linalg.norm(J @ v) / norm_f) ** 2 + 2 * mu * (np.linalg.norm(D * v) / norm_f) ** 2
                rho = (1 - (norm_t / norm_f) ** 2) / predicted
            if rho > 0:
                x = x + v; f = ft; J = jacobian(x); A = J.T @ J; g = J.T @ f; D = np.maximum(D, np.sqrt(np.diag(A)))
                b = 2 * rho - 1; mu *= max(1 / 3, 1 - b ** 3); nu = 2.0; progressed = True
                break
            mu *= nu; nu *= 2; refusals += 1
            if refusals > 15:
                break
        if not progressed and iteration == 1:
            break
        if np.all(np.abs(v) < xtol * xtol + xtol * np.abs(x)):
            break
        if np.max(np.abs(np.maximum(x, 1) * g)) <= gtol * max(0.5 * f @ f, 1):
            break
    return x, iteration


def linear_start(rssi):
    """Trilateration with an unknown range scale K, linear in (x, y, |p|^2, K), weighted by 1/r^2."""
    r2 = 10 ** ((P0 - rssi) / (5 * N))
    A = np.column_stack([-2 * BEACONS[:, 0], -2 * BEACONS[:, 1], np.ones(len(BEACONS)), -r2])
    y = -(BEACONS ** 2).sum(1) - HEIGHT * HEIGHT
    w = 1 / r2
    solution = np.linalg.lstsq(A * w[:, None], y * w, rcond=None)[0]
    return solution[:2], solution[3]


def scans(sigma, count=400, seed=1):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        truth = rng.uniform([1, 1], [29, 19])
        yield P0 - 10 * N * np.log10(distance(truth)) + rng.normal(0, sigma, len(BEACONS))


def problem(rssi, sigma):
    def residuals(u):  # u = (x, y, delta + 10 dB): the lab shifts delta so that its relative step test bites
        return (rssi - P0 - (u[2] - 10) + 10 * N * np.log10(distance(u[:2]))) / sigma

    def jacobian(u):
        d = distance(u[:2])
        dxy = (u[:2] - BEACONS) / (d * d)[:, None] * 10 * N / np.log(10)
        return np.hstack([dxy, -np.ones((len(BEACONS), 1))]) / sigma

    def start(p):
        return np.array([p[0], p[1], np.mean(rssi - P0 + 10 * N * np.log10(distance(p))) + 10])

    return residuals, jacobian, start


def power_centroid(rssi):
    w = 10 ** (rssi / 10)
    return (BEACONS * w[:, None]).sum(0) / w.sum()


def main():
    sigma = 4 / 3  # a window mean of nine readings at sigma 4 dB, as bench's open-hall scans
    ratios = []
    for rssi in scans(sigma):
        residuals, jacobian, start = problem(rssi, sigma)
        x0 = start(power_centroid(rssi))
        exact, _ = levenberg_marquardt(residuals, jacobian, x0, 1e-12)
        x, errors = x0.copy(), []
        for _ in range(7):
            J, f = jacobian(x), residuals(x)
            x = x + np.linalg.solve(J.T @ J, -J.T @ f)
            errors.append(np.linalg.norm(x[:2] - exact[:2]))
        ratios += [errors[k + 1] / errors[k] for k in range(1, 6) if errors[k] > 1e-9]
    q = np.quantile(ratios, [0.25, 0.5, 0.75])
    print(f"Gauss-Newton leaves {q[1]:.2f} of the error per step (median; quartiles {q[0]:.2f} and {q[2]:.2f})")
    print("GSL's step test at xtol (the lab's is 1e-5): iterations per fix, distance from the converged minimum")
    for xtol in [1e-5, 1e-4, 1e-3, 3e-3]:
        iterations, gaps = 0, []
        for rssi in scans(sigma):
            residuals, jacobian, start = problem(rssi, sigma)
            x0 = start(power_centroid(rssi))
            x, k = levenberg_marquardt(residuals, jacobian, x0, xtol)
            exact, _ = levenberg_marquardt(residuals, jacobian, x0, 1e-12)
            iterations += k; gaps.append(np.linalg.norm(x[:2] - exact[:2]))
        print(f"  xtol {xtol:g}: {iterations / len(gaps):.2f} iterations, largest gap {1000 * max(gaps):.2f} mm, "
              f"99th percentile {1000 * np.quantile(gaps, 0.99):.2f} mm")
    print("Start from the power-weighted centroid or a linearised trilateration (xtol 1e-5)")
    for noise in [sigma, 4.0]:
        counts = {"centroid": 0, "linear": 0}; fallbacks = 0; total = 0
        for rssi in scans(noise):
            residuals, jacobian, start = problem(rssi, noise)
            centroid = power_centroid(rssi)
            counts["centroid"] += levenberg_marquardt(residuals, jacobian, start(centroid), 1e-5)[1]
            q, scale = linear_start(rssi)
            if not (scale > 0 and 0 <= q[0] <= 30 and 0 <= q[1] <= 20):
                fallbacks += 1; q = centroid
            counts["linear"] += levenberg_marquardt(residuals, jacobian, start(q), 1e-5)[1]
            total += 1
        print(f"  window sigma {noise:.2f} dB: centroid {counts['centroid'] / total:.2f} iterations, "
              f"linearised {counts['linear'] / total:.2f} ({fallbacks} of {total} fell back to the centroid)")

    print("Three unknowns or delta projected out (xtol 1e-5, window sigma 1.33 dB)")
    three, two, gaps = 0, 0, []
    for rssi in scans(sigma):
        residuals, jacobian, start = problem(rssi, sigma)
        centroid = power_centroid(rssi)
        x3, k3 = levenberg_marquardt(residuals, jacobian, start(centroid), 1e-5)

        def projected(p):
            e = rssi - P0 + 10 * N * np.log10(distance(p))
            return (e - e.mean()) / sigma

        def projected_jacobian(p):
            d = distance(p)
            dxy = (p - BEACONS) / (d * d)[:, None] * 10 * N / np.log(10)
            return (dxy - dxy.mean(0)) / sigma

        x2, k2 = levenberg_marquardt(projected, projected_jacobian, centroid.copy(), 1e-5)
        three += k3; two += k2; gaps.append(np.linalg.norm(x3[:2] - x2))
    print(f"  three unknowns {three / len(gaps):.2f} iterations, projected {two / len(gaps):.2f}; "
          f"the fixes agree within {1000 * max(gaps):.2f} mm")


if __name__ == "__main__":
    main()
