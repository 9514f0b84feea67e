import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite(.tetherBootstrap()) struct SharingTests {
  @Test func twoHoldersSeeEachOthersWrites() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var a = 0
      @Shared(.inMemory("count")) var b = 0
      $a.withLock { $0 = 5 }
      #expect(b == 5)
      $b.withLock { $0 += 1 }
      #expect(a == 6)
    }
  }

  @Test func aNewHolderSeesTheLastValueAfterAllAreReleased() async throws {
    try await isolated {
      do {
        let a = Shared(wrappedValue: 0, .inMemory("count"))
        a.withLock { $0 = 41 }
      }
      #expect(TetherScope.current.references.count == 0)
      let b = Shared(wrappedValue: 0, .inMemory("count"))
      #expect(b.wrappedValue == 41)
    }
  }

  @Test func theFirstDefaultPersistsAfterRelease() async throws {
    try await isolated {
      do { _ = Shared(wrappedValue: 1, .inMemory("count")) }
      let later = Shared(wrappedValue: 2, .inMemory("count"))
      #expect(later.wrappedValue == 1)
    }
  }

  enum Holder: CaseIterable, Sendable {
    case writerInline, writerKeyDefault, readerInline, readerKeyDefault

    /// Creates a holder of `.count` and returns its value; the key's own default is 7.
    func make(_ inline: Int) -> (value: @Sendable () -> Int, keep: any Sendable) {
      switch self {
      case .writerInline:
        let s = Shared(wrappedValue: inline, .inMemory("count"))
        return ({ s.wrappedValue }, s)
      case .writerKeyDefault:
        let s = Shared(.count)
        return ({ s.wrappedValue }, s)
      case .readerInline:
        let s = SharedReader(wrappedValue: inline, .inMemory("count"))
        return ({ s.wrappedValue }, s)
      case .readerKeyDefault:
        let s = SharedReader(.count)
        return ({ s.wrappedValue }, s)
      }
    }

    func expectedDefault(_ inline: Int) -> Int {
      self == .writerInline || self == .readerInline ? inline : 7
    }
  }

  @Test(arguments: Holder.allCases, Holder.allCases)
  func theFirstHoldersDefaultWins(first: Holder, second: Holder) async throws {
    try await isolated {
      let a = first.make(1)
      let b = second.make(2)
      let expected = first.expectedDefault(1)
      #expect(a.value() == expected)
      #expect(b.value() == expected)
      withExtendedLifetime((a.keep, b.keep)) {}
    }
  }

  @Test func aDefaultKeyNeedsNoInlineDefault() async throws {
    try await isolated {
      @Shared(.count) var count
      #expect(count == 7)
      @SharedReader(.count) var reader
      $count.withLock { $0 = 8 }
      #expect(reader == 8)
    }
  }

  @Test func anInlineDefaultOverridesTheKeysOwnOnlyWhenNothingIsLive() async throws {
    try await isolated {
      @Shared(.count) var count = 3
      #expect(count == 3)
      @Shared(.count) var other = 4
      #expect(other == 3)
    }
  }

  @Test func aDefaultKeyAndItsBaseAreOneReference() async throws {
    try await isolated {
      @Shared(.count) var count
      @Shared(.inMemory("count")) var bare = 0
      $bare.withLock { $0 = 99 }
      #expect(count == 99)
    }
  }

  @Test func keysOfDifferentTypesWithOneIdShareOneReference() async throws {
    try await isolated {
      let storage = TestStorage<Int>(5)
      let key = TestKey("n", storage: storage)
      @Shared(key) var plain = 0
      @Shared(TestKey<Int>.Default[key, default: 0]) var wrapped
      $wrapped.withLock { $0 = 6 }
      #expect(plain == 6)
      #expect(storage.activeSubscriptions == 1)
    }
  }

  @Test func valuesOfDifferentTypesUnderOneNameAreSeparate() async throws {
    try await isolated {
      @Shared(.inMemory("x")) var number = 1
      @Shared(.inMemory("x")) var text = "one"
      $number.withLock { $0 = 2 }
      #expect(text == "one")
    }
  }

  @Test func requireThrowsWhenNothingIsStoredAndSharesWhenSomethingIs() async throws {
    try await isolated {
      await #expect(throws: TetherError.noValue(key: ".inMemory(\"missing\")")) {
        _ = try await Shared<Int>(require: .inMemory("missing"))
      }
      @Shared(.inMemory("present")) var present = 3
      let required = try await Shared<Int>(require: .inMemory("present"))
      #expect(required.wrappedValue == 3)
      required.withLock { $0 = 4 }
      #expect(present == 4)
    }
  }

  @Test func aPlainSharedValueIsAReference() async throws {
    let a = Shared(value: 0)
    let b = a
    b.withLock { $0 = 3 }
    #expect(a.wrappedValue == 3)
    #expect(a == b)
    #expect(Shared(value: 3) == a)
  }

  @Test func optionalsDefaultToNil() async throws {
    try await isolated {
      @Shared(.inMemory("user")) var user: String?
      #expect(user == nil)
      $user.withLock { $0 = "blob" }
      @Shared(.inMemory("user")) var again: String?
      #expect(again == "blob")
    }
  }

  @Test func reassigningTheProjectedValueRekeysEveryCopy() async throws {
    try await isolated {
      @Shared(.inMemory("a")) var a = 1
      @Shared(.inMemory("b")) var b = 2
      let copy = $a
      $a = $b
      #expect(a == 2)
      #expect(copy.wrappedValue == 2)
      copy.withLock { $0 = 3 }
      #expect(b == 3)
    }
  }

  @Test func rekeyingLetsGoOfTheEarlierKeyButProjectionsKeepTheirs() async throws {
    try await isolated {
      let a = Shared(wrappedValue: 1, .inMemory("a"))
      let projection = a[dynamicMember: \Int.self]
      a.projectedValue = Shared(wrappedValue: 2, .inMemory("b"))
      // "a" lives on through the projection made before the re-key.
      #expect(TetherScope.current.references.count == 2)
      #expect(projection.wrappedValue == 1)
      _ = consume projection
      #expect(TetherScope.current.references.count == 1)
      #expect(a.wrappedValue == 2)
    }
  }

  @Test func scopesDoNotShareValues() async throws {
    try await isolated {
      @Shared(.inMemory("count")) var count = 0
      $count.withLock { $0 = 10 }
      try await isolated {
        @Shared(.inMemory("count")) var inner = 0
        #expect(inner == 0)
      }
    }
  }

  /// The table of live references finds them by a hash first: keys whose ids all hash alike
  /// must still be distinct references, and one going must not take another with it.
  @Test func keysWhoseIdsHashAlikeAreDistinctReferences() async throws {
    try await isolated {
      let a = Shared(wrappedValue: 1, CollidingKey(name: "a"))
      var b: Shared<Int>? = Shared(wrappedValue: 2, CollidingKey(name: "b"))
      let c = Shared(wrappedValue: 3, CollidingKey(name: "c"))
      #expect(TetherScope.current.references.count == 3)
      #expect([a.wrappedValue, b?.wrappedValue, c.wrappedValue] == [1, 2, 3])
      b = nil
      #expect(TetherScope.current.references.count == 2)
      let again = Shared(wrappedValue: 0, CollidingKey(name: "c"))
      again.withLock { $0 = 30 }
      #expect([a.wrappedValue, c.wrappedValue] == [1, 30])
      #expect(Shared(wrappedValue: 0, CollidingKey(name: "b")).wrappedValue == 2)
    }
  }

  /// Ids are one reference when they are equal as `AnyHashable`s, as a registered key's erased
  /// id and its resolved key's are; numbers compare across their types there.
  @Test func idsEqualAsAnyHashablesAreOneReference() async throws {
    try await isolated {
      let wide = Shared(wrappedValue: 0, TypedIDKey(name: "n", id: 7 as Int))
      let narrow = Shared(wrappedValue: 0, TypedIDKey(name: "n", id: 7 as Int8))
      let erased = Shared(wrappedValue: 0, ErasedIDKey(name: "n", id: 7 as UInt16))
      var live = [TetherScope.current.references.count]
      wide.withLock { $0 = 5 }
      let seen = [narrow.wrappedValue, erased.wrappedValue]

      let named = Shared(wrappedValue: 0, TypedIDKey(name: "m", id: "x"))
      let namedErased = Shared(wrappedValue: 0, ErasedIDKey(name: "m", id: "x"))
      let other = Shared(wrappedValue: 0, TypedIDKey(name: "o", id: 8 as Int))
      live.append(TetherScope.current.references.count)
      #expect(live == [1, 3])
      #expect(seen == [5, 5])
      withExtendedLifetime((named, namedErased, other)) {}
    }
  }
}

/// An in-memory key named `name` whose id is `id`.
private struct TypedIDKey<ID: Hashable & Sendable>: InMemoryForwardingKey {
  let name: String
  let id: ID
}

/// An in-memory key named `name` whose id is `AnyHashable(id)`, as a registered key's is.
private struct ErasedIDKey<Base: Hashable & Sendable>: InMemoryForwardingKey {
  let name: String
  let base: Base

  init(name: String, id: Base) {
    (self.name, self.base) = (name, id)
  }

  var id: AnyHashable { AnyHashable(base) }
}

/// An in-memory key whose ids hash alike (only `==` tells them apart).
private struct CollidingKey: InMemoryForwardingKey {
  struct ID: Hashable {
    let name: String
    func hash(into hasher: inout Hasher) {}
  }

  let name: String
  var id: ID { ID(name: name) }
}
