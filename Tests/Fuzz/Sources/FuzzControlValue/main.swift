import FuzzSupport
import KameraKit

/// `--set NAME=VALUE` values against a control whose type, range, step and
/// menu come from the input too, as a driver could report them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    var input = FuzzBytes(UnsafeRawBufferPointer(start: data, count: count))
    let kinds: [CameraControl.Kind] = [.integer, .boolean, .menu, .button, .integer64, .string, .bitmask, .integerMenu, .other]
    let kind = kinds[Int(input.byte()) % kinds.count]
    let minimum = input.int64(), maximum = input.int64(), step = input.int64()
    let menu = (0..<Int(input.byte() % 8)).map { _ in (index: Int64(input.byte()) - 4, name: input.line()) }
    let control = CameraControl(id: 1, label: "Fuzzed", name: CameraControl.normalizedName(input.line()), kind: kind,
                                minimum: minimum, maximum: maximum, step: step, defaultValue: 0, value: nil,
                                menu: menu, readOnly: input.byte() == 1, inactive: false)
    let text = String(decoding: input.rest, as: UTF8.self)
    if let value = try? control.parse(text) {
        // A button's value is not used: pressing it takes any.
        precondition(kind == .button || (value >= minimum && value <= maximum), "a parsed value is within the control's range")
    }
    return 0
}

runFuzzer(fuzz)
