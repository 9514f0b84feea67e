import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite(.tetherBootstrap()) struct ProjectionTests {
  @Test func aWritableProjectionWritesThroughAndFollowsTheParent() async throws {
    try await isolated {
      @Shared(.inMemory("settings")) var settings = Settings()
      let theme: Shared<String> = $settings.theme
      theme.withLock { $0 = "dark" }
      #expect(settings.theme == "dark")
      $settings.withLock { $0.theme = "solarized" }
      #expect(theme.wrappedValue == "solarized")
    }
  }

  @Test func aReadOnlyPropertyProjectsToAReader() async throws {
    try await isolated {
      @Shared(.inMemory("settings")) var settings = Settings()
      let id: SharedReader<Int> = $settings.id
      let size: SharedReader<Int> = SharedReader($settings.fontSize)
      $settings.withLock { $0.fontSize = 20 }
      #expect(id.wrappedValue == 1)
      #expect(size.wrappedValue == 20)
    }
  }

  @Test func keyPathsKeptInVariablesProjectToo() async throws {
    try await isolated {
      @Shared(.inMemory("settings")) var settings = Settings()
      let themePath: WritableKeyPath<Settings, String> = \.theme
      let idPath: KeyPath<Settings, Int> = \.id
      let theme: Shared<String> = $settings[dynamicMember: themePath]
      theme.withLock { $0 = "dark" }
      #expect(settings.theme == "dark")
      #expect($settings[dynamicMember: idPath].wrappedValue == 1)
      let reader = SharedReader($settings)
      #expect(reader[dynamicMember: themePath].wrappedValue == "dark")
    }
  }

  @Test func aProjectionSavesThroughTheParentsKey() async throws {
    try await isolated {
      let storage = TestStorage<Settings>()
      @Shared(TestKey("settings", storage: storage)) var settings = Settings()
      $settings.fontSize.withLock { $0 = 14 }
      #expect(storage.value?.fontSize == 14)
    }
  }

  @Test func aProjectionStaysOnTheReferenceItWasMadeFrom() async throws {
    try await isolated {
      @Shared(.inMemory("a")) var a = Settings()
      let theme = $a.theme
      $a = Shared(wrappedValue: Settings(theme: "b"), .inMemory("b"))
      #expect(theme.wrappedValue == "light")
      #expect(a.theme == "b")
    }
  }

  @Test func anOptionalUnwrapFailsOnNilAndFollowsTheParentAfterwards() async throws {
    try await isolated {
      @Shared(.inMemory("user")) var user: String? = nil
      #expect(Shared($user) == nil)

      $user.withLock { $0 = "ada" }
      let unwrapped = try #require(Shared($user))
      #expect(unwrapped.wrappedValue == "ada")

      unwrapped.withLock { $0 = "grace" }
      #expect(user == "grace")

      $user.withLock { $0 = nil }
      #expect(unwrapped.wrappedValue == "grace")
      unwrapped.withLock { $0 = "local" }
      #expect(user == nil)

      $user.withLock { $0 = "back" }
      #expect(unwrapped.wrappedValue == "back")

      let reader = try #require(SharedReader(SharedReader($user)))
      $user.withLock { $0 = "read" }
      #expect(reader.wrappedValue == "read")
    }
  }
}
