import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTesting

/// The plain-scalar reader must give what `JSONDecoder` gives, or leave the text to it.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct ScalarJSONTests {
  /// Texts near the plain forms (numbers, literals, quoted strings, with whitespace, signs,
  /// escapes, control bytes and invalid UTF-8 mixed in): whenever the reader takes one, it reads
  /// the value `JSONDecoder` reads; it must take most plain ones.
  @Test func readsWhatJSONDecoderReadsOrLeavesItToIt() throws {
    var generator = SystemRandomNumberGenerator()
    let pieces: [[UInt8]] = [
      Array("0".utf8), Array("7".utf8), Array("42".utf8), Array("-".utf8), Array("+".utf8),
      Array(".5".utf8), Array("e3".utf8), Array(" ".utf8), Array("\n".utf8), Array("\t".utf8),
      Array("\r".utf8), Array("\"".utf8), Array("\\".utf8), Array("\\n".utf8), Array("true".utf8),
      Array("false".utf8), Array("null".utf8), Array("é".utf8), Array("😀".utf8), [0xFF], [0xC3],
      [0x00], [0x1F], [0x7F], [0xEF, 0xBB, 0xBF], Array("9223372036854775807".utf8),
      Array("9223372036854775808".utf8), Array("a".utf8),
    ]
    var taken = (int: 0, bool: 0, string: 0)
    for round in 0..<30_000 {
      var bytes: [UInt8] = []
      for _ in 0..<Int.random(in: 0...5, using: &generator) {
        bytes += pieces.randomElement(using: &generator)!
      }
      // A third quoted, a third numbers, so that the plain forms are common.
      switch round % 3 {
      case 0: bytes = Array("\"".utf8) + bytes + Array("\"".utf8)
      case 1:
        bytes = Array(String(Int.random(in: Int.min...Int.max, using: &generator)).utf8) + bytes
      default: break
      }
      let data = Data(bytes)
      if try agrees(Int.self, on: data) { taken.int += 1 }
      if try agrees(Bool.self, on: data) { taken.bool += 1 }
      if try agrees(String.self, on: data) { taken.string += 1 }
    }
    #expect(taken.int > 1_000 && taken.bool > 100 && taken.string > 1_000, "\(taken)")
  }

  /// The edges of the plain forms, each as `JSONDecoder` reads it.
  @Test func edges() throws {
    let cases = [
      "0", "-0", "00", "01", "-", "", " ", "9223372036854775807", "-9223372036854775808",
      "9223372036854775808", "-9223372036854775809", " \t\r\n12 \n", "1 2", "1.0", "1e2",
      "true", " false\n", "True", "\"\"", "\"a b\"", "\"\\u00e9\"", "\"é\"", "\"", "\"a\"b\"",
      "\u{FEFF}1", "\u{FEFF}\"a\"",
    ]
    for text in cases {
      let data = Data(text.utf8)
      _ = try agrees(Int.self, on: data)
      _ = try agrees(Bool.self, on: data)
      _ = try agrees(String.self, on: data)
    }
    #expect(ScalarJSON.decode(Int.self, from: Data("-9223372036854775808".utf8)) == Int.min)
    #expect(ScalarJSON.decode(Int.self, from: Data(" 9223372036854775807\n".utf8)) == Int.max)
    #expect(ScalarJSON.decode(String.self, from: Data("\"é 😀\"".utf8)) == "é 😀")
    #expect(ScalarJSON.decode(Double.self, from: Data("1".utf8)) == nil, "not a type it reads")
  }

  /// A file key reads its file through the same reader, and a text it leaves to `JSONDecoder`
  /// fails as `JSONDecoder` fails.
  @Test func aFileKeyReadsPlainAndOtherForms() async throws {
    try await withTemporaryDirectory { folder in
      do {
        let plain = folder.appending(path: "plain.json")
        let exponent = folder.appending(path: "exponent.json")
        let bad = folder.appending(path: "bad.json")
        try Data(" -12\n".utf8).write(to: plain)
        try Data("1e2".utf8).write(to: exponent)
        try Data("01".utf8).write(to: bad)
        @SharedReader(.fileStorage(plain)) var plainValue = 0
        @SharedReader(.fileStorage(exponent)) var exponentValue = 0
        @SharedReader(.fileStorage(bad)) var badValue = 5
        #expect([plainValue, badValue] == [-12, 5] as [Int])
        let expected: Int
        do {
          expected = try JSONDecoder().decode(Int.self, from: Data("1e2".utf8))
        } catch {
          expected = 0
        }
        #expect(exponentValue == expected)
        #expect($badValue.loadError is DecodingError)
      }
    }
  }

  /// Whether the reader took `data` as a `V`; when it did, `JSONDecoder` must read the same.
  private func agrees<V: Decodable & Equatable>(_ type: V.Type, on data: Data) throws -> Bool {
    guard let fast = ScalarJSON.decode(type, from: data) else { return false }
    let decoded = try JSONDecoder().decode(type, from: data)
    #expect(fast == decoded, "\(Array(data))")
    return true
  }
}
