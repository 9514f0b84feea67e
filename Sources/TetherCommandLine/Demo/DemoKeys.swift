import Tether

/// A fact about a number, saved to the favourites.
struct Fact: Codable, Equatable, Sendable {
  var number: Int
  var text: String
}

// The demo's keys, declared once by name and type; Config/tether.conf decides where they live.
extension SharedKey where Self == RegisteredKey<Int>.Default {
  static var count: Self { Self[.registered("count"), default: 0] }
}

extension SharedKey where Self == RegisteredKey<[Fact]>.Default {
  static var favoriteFacts: Self { Self[.registered("favoriteFacts"), default: []] }
}

extension SharedKey where Self == RegisteredKey<String>.Default {
  static var greeting: Self { Self[.registered("demo.greeting"), default: "Tether demo"] }
}
