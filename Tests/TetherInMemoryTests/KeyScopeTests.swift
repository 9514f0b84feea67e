import Testing
import Tether
import TetherInMemory
import TetherTesting

/// A key value made in one scope and held in another resolves in the scope where it is held:
/// one value per name in a scope, whichever scope the key value came from.
@Suite(.tetherBootstrap()) struct KeyScopeTests {
  @Test func anInMemoryKeyMadeInAnotherScopeUsesTheHoldersScope() async throws {
    try await Self.inMemoryAcrossScopes()
  }

  private static func inMemoryAcrossScopes() async throws {
    try await memoryBootstrap {
      let keyOfA = InMemoryKey<Int>.inMemory("x")
      let inA = Shared(wrappedValue: 6, keyOfA)
      try await memoryBootstrap {
        let viaKeyOfA = Shared(wrappedValue: 0, keyOfA)
        let own = Shared(wrappedValue: 0, .inMemory("x"))
        viaKeyOfA.withLock { $0 = 42 }
        #expect(own.wrappedValue == 42)
        #expect(viaKeyOfA.wrappedValue == 42)
      }
      #expect(inA.wrappedValue == 6, "scope A's value is its own")
    }
  }

  @Test func aRegisteredKeyMadeInAnotherScopeResolvesThroughTheHoldersConfig() async throws {
    try await Self.registeredAcrossScopes()
  }

  private static func registeredAcrossScopes() async throws {
    try await memoryBootstrap {
      let keyOfA = RegisteredKey<Int>.registered("count")
      let inA = Shared(wrappedValue: 0, keyOfA)
      inA.withLock { $0 = 6 }
      try await memoryBootstrap {
        let own = Shared(wrappedValue: 0, .registered("count"))
        own.withLock { $0 = 9 }
        let viaKeyOfA = Shared(wrappedValue: 0, keyOfA)
        #expect(viaKeyOfA.wrappedValue == 9, "scope B's value, not A's 6")
        let reader = SharedReader(wrappedValue: 0, keyOfA)
        #expect(reader.wrappedValue == 9)
        let required = try await Shared(require: keyOfA)
        #expect(required.wrappedValue == 9)
      }
      #expect(inA.wrappedValue == 6)
    }
  }
}
