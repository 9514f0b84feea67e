import Observation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite(.tetherBootstrap(), .timeLimit(.minutes(1))) struct SharedCollectionTests {
  struct Todo: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var isDone = false
  }

  static let todos = [Todo(id: 1, title: "a"), Todo(id: 2, title: "b"), Todo(id: 3, title: "c")]

  @Test func eachElementReadsAndWritesItsElement() async throws {
    try await isolated {
      @Shared(.inMemory("todos")) var todos = Self.todos
      let shared = Array($todos)
      #expect(shared.map(\.wrappedValue) == Self.todos)
      #expect(shared.map(\.id) == [1, 2, 3])
      shared[1].withLock { $0.isDone = true }
      #expect(todos.map(\.isDone) == [false, true, false])
      $todos.withLock { $0[2].title = "C" }
      #expect(shared[2].wrappedValue.title == "C")
    }
  }

  @Test func anElementFollowsItsIdThroughReorderingAndInsertion() async throws {
    try await isolated {
      @Shared(.inMemory("todos")) var todos = Self.todos
      let first = Array($todos)[0]
      $todos.withLock { $0.reverse() }
      #expect(first.wrappedValue.title == "a")
      $todos.withLock { $0.insert(Todo(id: 9, title: "new"), at: 0) }
      first.withLock { $0.title = "A" }
      #expect(todos.map(\.title) == ["new", "c", "b", "A"])
    }
  }

  @Test func aRemovedElementKeepsItsLastValueAndWritesStayLocal() async throws {
    try await isolated {
      @Shared(.inMemory("todos")) var todos = Self.todos
      let third = Array($todos)[2]
      $todos.withLock { _ = $0.removeLast() }
      #expect(third.wrappedValue == Self.todos[2])
      third.withLock { $0.title = "kept" }
      #expect(third.wrappedValue.title == "kept")
      #expect(todos == Array(Self.todos.prefix(2)), "the element is not put back")
      await #expect(throws: TetherError.noValue(key: third.descriptionOfReference)) {
        try await third.transaction { $0.isDone = true }
      }

      $todos.withLock { $0.append(Todo(id: 3, title: "back")) }
      #expect(third.wrappedValue.title == "back", "it follows its id again")
    }
  }

  @Test func aWriteThroughAnElementIsOneSaveOfTheCollection() async throws {
    try await isolated {
      let storage = TestStorage<[Todo]>()
      @Shared(TestKey("todos", storage: storage)) var todos = Self.todos
      let shared = Array($todos)
      shared[0].withLock { $0.isDone = true }
      #expect(storage.saves.count == 1)
      #expect(storage.saves.last?.value.map(\.isDone) == [true, false, false])
      shared[0].withLock { $0.isDone = true }
      #expect(storage.saves.count == 1, "no change by ==, no save")
    }
  }

  @Test func aTrackerOfAnElementIsToldOfItsChange() async throws {
    try await isolated {
      @Shared(.inMemory("todos")) var todos = Self.todos
      let second = Array($todos)[1]
      let told = Mutex(false)
      withObservationTracking {
        _ = second.wrappedValue
      } onChange: {
        told.withLock { $0 = true }
      }
      $todos.withLock { $0[1].title = "B" }
      #expect(told.withLock { $0 })
    }
  }

  @Test func anElementsChangesFollowTheCollection() async throws {
    try await isolated {
      let storage = TestStorage<[Todo]>()
      @Shared(TestKey("todos", storage: storage)) var todos = Self.todos
      var iterator = Array($todos)[0].changes.makeAsyncIterator()
      #expect(await iterator.take()?.title == "a")
      storage.externalChange([Todo(id: 2, title: "b"), Todo(id: 1, title: "edited")])
      #expect(await iterator.take()?.title == "edited")
    }
  }

  @Test func aReaderCollectionGivesReadersOfItsElements() async throws {
    try await isolated {
      @Shared(.inMemory("todos")) var todos = Self.todos
      let readers = Array(SharedReader($todos))
      $todos.withLock { $0.swapAt(0, 2) }
      #expect(readers.map(\.wrappedValue.title) == ["a", "b", "c"])
      $todos.withLock { $0[0].title = "C" }
      #expect(readers[2].wrappedValue.title == "C")
      #expect(
        readers[2].description == #"SharedReader<Todo>(.inMemory("todos")[id: 3])"#)
    }
  }

  @Test func anElementCannotBeResetAlone() async throws {
    try await isolated {
      @Shared(.inMemory("todos")) var todos = Self.todos
      let first = Array($todos)[0]
      await #expect(
        throws: TetherError.notResettable(key: first.descriptionOfReference, kind: "projection")
      ) {
        try await first.reset()
      }
      #expect(todos == Self.todos)
    }
  }
}

extension Shared {
  /// What the description names inside `Shared<…>(…)`: the reference.
  fileprivate var descriptionOfReference: String {
    let text = description
    let start = text.index(after: text.firstIndex(of: "(")!)
    return String(text[start..<text.index(before: text.endIndex)])
  }
}
