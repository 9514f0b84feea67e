/// Saving: changes handed to the key, explicit saves, and their outcomes.
extension StoredReference {
  @usableFromInline
  var saveError: (any Error)? {
    access(ObservedSubject.saveErrorPath)
    return readLock.withLock { _ in lastSaveError }
  }

  /// Hands a change to the key with a continuation: the path of keys that do not take changes
  /// inline.
  @usableFromInline
  func save(_ newValue: Value, through writer: Writer<Value>) {
    writer.key.save(newValue, context: .didSet, continuation: SaveContinuation(target: self))
  }

  @usableFromInline
  func save() async throws {
    let result: Result<Void, any Error>? = await withCheckedContinuation { continuation in
      let caller = CallerWork()
      // Under the lock, so this save reaches the key in order with implicit ones.
      lock.withLock {
        guard let writer = writer?.key else {
          return continuation.resume(returning: .success(()))
        }
        writer.save(
          value, context: .userInitiated,
          continuation: SaveContinuation(subject: writer, caller: caller) { result in
            continuation.resume(returning: result)
          })
      }
      caller.run()
    }
    saveFinished(result)
    if case .failure(let error) = result { throw error }
  }

  /// Lets a `Shared` join a reference that a `SharedReader` created with a read-only key of the
  /// same id: saves then go to `writer`.
  func adopt(writer: any SharedKey<Value>) {
    lock.withLock {
      guard keyed != nil, self.writer == nil else { return }
      self.writer = Writer(writer)
      decideInline()
    }
  }

  /// Takes the inline offer when it stands for the writer: a key of the writer's type, or one
  /// the writer (a key of Tether's own) handed the subscriber on to. An app's key that wraps
  /// another keeps its own `save`. Call holding `lock`.
  func decideInline() {
    inlineCell = nil
    inlineCellHeld = nil
    inlineSave = nil
    guard let keyType = inlineOfferKeyType, let writer else { return }
    let writerType = ObjectIdentifier(type(of: writer.key))
    guard keyType == writerType || inlineOfferForwarders.contains(writerType) else { return }
    switch inlineOfferSave {
    case .storing(let cell):
      inlineCellHeld = cell
      inlineCell = Unmanaged.passUnretained(cell)
    case .calling(let save): inlineSave = save
    case nil: break
    }
  }

  /// The key a report about one of this value's saves names.
  var saveSubject: any Sendable {
    lock.withLock { writer.map { $0.key as any Sendable } ?? "a shared value without a key" }
  }

  /// Takes a save's result: success clears the errors, failure sets `saveError`.
  @usableFromInline
  func saveFinished(_ result: Result<Void, any Error>?) {
    lock.withLock {
      switch result {
      case .success:
        // What is stored is now this value, so an earlier load failure no longer applies.
        setSaveError(nil)
        setLoadError(nil)
      case .failure(let error):
        setSaveError(error)
      case nil:
        break
      }
    }
  }

  private func setSaveError(_ error: (any Error)?) {
    guard lastSaveError != nil || error != nil else { return }
    mutate(ObservedSubject.saveErrorPath) { lastSaveError = error }
  }
}

/// A reference's writing key, held in an object so that saving reaches it without a copy.
@usableFromInline
final class Writer<Value: Sendable>: Sendable {
  @usableFromInline let key: any SharedKey<Value>

  @usableFromInline init(_ key: any SharedKey<Value>) {
    self.key = key
  }
}
