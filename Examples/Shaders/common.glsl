// Shared by the example shaders: a damped ring travelling outward.
float ripple(float r, float t) {
    return sin(40.0 * r - 6.0 * t) * exp(-3.0 * r);
}
