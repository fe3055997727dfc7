fn nil_sincos_f64(x: f64) -> vec2<f64> {
    let k = round(x * f64(0.6366197723675814));
    // Cody-Waite in two `fma`s: written as `(x - k*c1) - k*c2`, NVIDIA's
    // driver factors out k and subtracts k*(c1 + c2), rounded, which put
    // sin(1e4) 4e-13 off on an H200.
    let r = fma(-k, f64(6.077100506506192e-11), fma(-k, f64(1.5707963267341256), x));
    let r2 = r * r;
    var s: f64 = f64(0.0);
    var c: f64 = f64(0.0);
    var ts: f64 = r;
    var tc: f64 = f64(1.0);
    for (var n: i32 = 0; n < 11; n++) {
        s += ts;
        c += tc;
        ts = -ts * r2 / (f64(2 * n + 2) * f64(2 * n + 3));
        tc = -tc * r2 / (f64(2 * n + 1) * f64(2 * n + 2));
    }
    let q = i32(k) & 3;
    if (q == 0) {
        return vec2<f64>(s, c);
    }
    if (q == 1) {
        return vec2<f64>(c, -s);
    }
    if (q == 2) {
        return vec2<f64>(-s, -c);
    }
    return vec2<f64>(-c, s);
}

fn nil_sin_f64(x: f64) -> f64 {
    return nil_sincos_f64(x).x;
}

fn nil_cos_f64(x: f64) -> f64 {
    return nil_sincos_f64(x).y;
}

fn nil_tan_f64(x: f64) -> f64 {
    let sc = nil_sincos_f64(x);
    return sc.x / sc.y;
}

fn nil_exp_f64(x: f64) -> f64 {
    if (x > f64(709.8)) {
        return nil_powi_f64(f64(2.0), 1100);
    }
    if (x < f64(-745.2)) {
        return f64(0.0);
    }
    let k = round(x * f64(1.4426950408889634));
    // Two `fma`s, as in nil_sincos_f64, so no driver can fold c1 + c2.
    let r = fma(-k, f64(1.9082149292705877e-10), fma(-k, f64(0.6931471803691238), x));
    var t: f64 = f64(1.0);
    var s: f64 = f64(1.0);
    for (var n: i32 = 1; n < 19; n++) {
        t = t * r / f64(n);
        s += t;
    }
    return s * nil_powi_f64(f64(2.0), i32(k));
}

fn nil_log_f64(x: f64) -> f64 {
    if (!(x >= f64(0.0))) {
        let z = x - x;
        return z / z;
    }
    if (x == f64(0.0)) {
        return -nil_powi_f64(f64(2.0), 1100);
    }
    if (x > f64(1.7976931348623157e308)) {
        return x;
    }
    var m = x;
    var e: i32 = 0;
    for (var i: i32 = 0; i < 17 && m > f64(18446744073709551616.0); i++) {
        m = m * f64(5.421010862427522e-20);
        e += 64;
    }
    for (var i: i32 = 0; i < 18 && m < f64(5.421010862427522e-20); i++) {
        m = m * f64(18446744073709551616.0);
        e -= 64;
    }
    for (var i: i32 = 0; i < 70 && m > f64(1.4142135623730951); i++) {
        m = m * f64(0.5);
        e += 1;
    }
    for (var i: i32 = 0; i < 70 && m < f64(0.7071067811865476); i++) {
        m = m * f64(2.0);
        e -= 1;
    }
    let s = (m - f64(1.0)) / (m + f64(1.0));
    let s2 = s * s;
    var t: f64 = s;
    var sum: f64 = f64(0.0);
    for (var n: i32 = 0; n < 15; n++) {
        sum += t / f64(2 * n + 1);
        t = t * s2;
    }
    return f64(2.0) * sum + f64(e) * f64(1.9082149292705877e-10) + f64(e) * f64(0.6931471803691238);
}

fn nil_pow_f64(x: f64, y: f64) -> f64 {
    if (y == f64(0.0)) {
        return f64(1.0);
    }
    if (x == f64(0.0)) {
        return select(nil_powi_f64(f64(2.0), 1100), f64(0.0), y > f64(0.0));
    }
    if (x < f64(0.0)) {
        if (floor(y) != y) {
            let z = x - x;
            return z / z;
        }
        let v = nil_exp_f64(y * nil_log_f64(-x));
        let odd = abs(y - f64(2.0) * floor(y * f64(0.5))) == f64(1.0);
        return select(v, -v, odd);
    }
    return nil_exp_f64(y * nil_log_f64(x));
}

fn nil_sinh_f64(x: f64) -> f64 {
    if (abs(x) < f64(1.0)) {
        let x2 = x * x;
        var t: f64 = x;
        var s: f64 = f64(0.0);
        for (var n: i32 = 0; n < 12; n++) {
            s += t;
            t = t * x2 / (f64(2 * n + 2) * f64(2 * n + 3));
        }
        return s;
    }
    let e = nil_exp_f64(x);
    return (e - f64(1.0) / e) * f64(0.5);
}

fn nil_cosh_f64(x: f64) -> f64 {
    let e = nil_exp_f64(x);
    return (e + f64(1.0) / e) * f64(0.5);
}

fn nil_tanh_f64(x: f64) -> f64 {
    if (abs(x) > f64(20.0)) {
        return select(f64(-1.0), f64(1.0), x > f64(0.0));
    }
    return nil_sinh_f64(x) / nil_cosh_f64(x);
}

fn nil_atan_f64(x: f64) -> f64 {
    var a = abs(x);
    var off: f64 = f64(0.0);
    let inv = a > f64(1.0);
    if (inv) {
        a = f64(1.0) / a;
    }
    if (a > f64(0.41421356237309503)) {
        a = (a - f64(1.0)) / (a + f64(1.0));
        off = f64(0.7853981633974483);
    }
    let a2 = a * a;
    var t: f64 = a;
    var sum: f64 = f64(0.0);
    for (var n: i32 = 0; n < 25; n++) {
        sum += t / f64(2 * n + 1);
        t = -t * a2;
    }
    var r = off + sum;
    if (inv) {
        r = f64(1.5707963267948966) - r;
    }
    return select(r, -r, x < f64(0.0));
}

fn nil_atan2_f64(y: f64, x: f64) -> f64 {
    if (x > f64(0.0)) {
        return nil_atan_f64(y / x);
    }
    if (x < f64(0.0)) {
        return nil_atan_f64(y / x) + select(f64(-3.141592653589793), f64(3.141592653589793), y >= f64(0.0));
    }
    if (y > f64(0.0)) {
        return f64(1.5707963267948966);
    }
    if (y < f64(0.0)) {
        return f64(-1.5707963267948966);
    }
    return f64(0.0);
}

fn nil_asin_f64(x: f64) -> f64 {
    return nil_atan2_f64(x, sqrt(f64(1.0) - x * x));
}

fn nil_acos_f64(x: f64) -> f64 {
    return nil_atan2_f64(sqrt(f64(1.0) - x * x), x);
}

