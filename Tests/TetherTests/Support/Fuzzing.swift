/// A small seeded generator, so a fuzz failure names a seed that reproduces it.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// One random edit of the kind a fuzzer finds interesting: bytes that are syntax or not UTF-8,
/// and whole lines deleted or repeated (which makes duplicates).
func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
  let interesting =
    Array(#""\=[]#; \t\r\n{}u"#.utf8) + [0, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xED, 0xFF]
  let byte =
    Bool.random(using: &random)
    ? interesting[Int.random(in: 0..<interesting.count, using: &random)]
    : UInt8.random(in: 0...255, using: &random)
  let position = Int.random(in: 0...bytes.count, using: &random)
  let lineStart = bytes[..<position].lastIndex(of: 10).map { $0 + 1 } ?? 0
  let lineEnd = bytes[position...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
  switch Int.random(in: 0..<5, using: &random) {
  case 0: bytes.insert(byte, at: position)
  case 1 where position < bytes.count: bytes.remove(at: position)
  case 2 where position < bytes.count: bytes[position] = byte
  case 3: bytes.insert(contentsOf: bytes[lineStart..<lineEnd], at: lineStart)
  default: bytes.removeSubrange(lineStart..<lineEnd)
  }
}
