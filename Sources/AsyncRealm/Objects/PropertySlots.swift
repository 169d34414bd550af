/// What a realm writes into the `@Persisted` storage of each object it manages, so that a
/// property accessor knows which property it is with one load (`Persisted.managedSlot`).
///
/// An accessor is handed its storage's key path, but materialising a key path costs a runtime
/// call and two atomic reference-count operations, and finding its property means searching a
/// table: more than reading a small column. The storage of a managed object is otherwise
/// unused (its values live in the realm), so the realm writes the property's *slot* there when
/// it manages the object:
///
/// - a value property's column plus one (`1...0x7fff`): the accessor reads or writes that
///   column directly;
/// - `0x8000` plus the property's index in the schema for lists and linking objects, and for
///   every property of a *recorder* (an instance that records which property a key path
///   reads): the accessor takes the general path, which looks at the property.
///
/// Zero means unmanaged. Slots are written at offsets found once per class through the
/// standard library's field reflection (`PersistedFields`).
@usableFromInline
final class PropertySlots {
    /// Where to write and what, for an object and for a recorder. (Buffers rather than arrays:
    /// writing the slots of every object read must not retain and release anything.)
    private let object: UnsafeMutableBufferPointer<(offset: Int, slot: UInt16)>
    private let recorder: [(offset: Int, slot: UInt16)]

    /// Whether an accessor of this type that nothing else references may be made the accessor
    /// of another row (see `Results.Iterator`): every field of the instance is the storage of
    /// a value column, which a managed object never uses, so no state of the old row is left
    /// to see. A list or linking objects property, or a field that is not `@Persisted`, rules
    /// it out.
    let reusesAccessors: Bool

    /// The first slot of properties that are not value columns.
    static let general: UInt16 = 0x8000

    /// Whether `slot` is a value column, and which.
    @inlinable
    static func column(of slot: UInt16) -> Int? {
        slot != 0 && slot < 0x8000 ? Int(slot) &- 1 : nil
    }

    init(schema: ObjectSchema, columns: [String: Int], type: Object.Type, sample: Object) {
        let storages = PersistedFields.storageTypes(of: sample)
        var object: [(offset: Int, slot: UInt16)] = []
        var recorder: [(offset: Int, slot: UInt16)] = []
        require(schema.properties.count < Int(Self.general) && columns.count < Int(Self.general),
                     "'\(schema.className)' has more than 32,767 properties; split the model")
        for (index, property) in schema.properties.enumerated() {
            guard let storage = storages[property.name], let field = PersistedFields.offset(of: property.name, in: type) else {
                stop("cannot find the @Persisted storage of '\(schema.className).\(property.name)' in \(type)")
            }
            let offset = field + storage.managedSlotOffset
            let general = Self.general | UInt16(index)
            recorder.append((offset, general))
            if !property.isCollection, property.type != .linkingObjects, let column = columns[property.name] {
                object.append((offset, UInt16(column + 1)))
            } else {
                object.append((offset, general))
            }
        }
        reusesAccessors = object.allSatisfy { $0.slot < Self.general }
            && PersistedFields.storedFieldCount(of: type) == schema.properties.count
        self.object = .allocate(capacity: object.count)
        _ = self.object.initialize(from: object)
        self.recorder = recorder
    }

    deinit { object.deallocate() }

    /// Writes the slots into `object`.
    @inline(__always)
    func write(into object: Object) {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        for entry in self.object {
            base.storeBytes(of: entry.slot, toByteOffset: entry.offset, as: UInt16.self)
        }
    }

    /// Writes a recorder's slots into `object`.
    func write(intoRecorder object: Object) {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        for entry in recorder {
            base.storeBytes(of: entry.slot, toByteOffset: entry.offset, as: UInt16.self)
        }
    }
}

extension ClassInfo {
    /// Writes the property slots into `object`, a managed instance of this class (or a
    /// recorder); a `DynamicObject`, which has no `@Persisted` storage, gets none.
    func writeSlots(into object: Object, recorder: Bool = false) {
        let objectType = Swift.type(of: object)
        if !recorder, objectType == type, let typeSlots {
            typeSlots._withUnsafeGuaranteedRef { $0.write(into: object) }
            return
        }
        guard objectType != DynamicObject.self else { return }
        let key = ObjectIdentifier(objectType)
        let slots = propertySlots[key] ?? PropertySlots(schema: schema, columns: columns, type: objectType, sample: object)
        propertySlots[key] = slots
        if objectType == type { typeSlots = Unmanaged.passUnretained(slots) }
        if recorder { slots.write(intoRecorder: object) } else { slots.write(into: object) }
    }

    /// Whether iterating this class's objects may reuse an accessor the caller let go of
    /// (`PropertySlots.reusesAccessors`), for instances of exactly `type`. Asked once an
    /// accessor of `type` has been made, which wrote its slots (a `DynamicObject` has none).
    func reusesAccessors(of type: Object.Type) -> Bool {
        guard type == self.type, let typeSlots else { return false }
        return typeSlots._withUnsafeGuaranteedRef(\.reusesAccessors)
    }

    /// The property that general slot `slot` names.
    func property(forSlot slot: UInt16) -> Property {
        guard slot >= PropertySlots.general, Int(slot - PropertySlots.general) < schema.properties.count else {
            stop("this object of '\(schema.className)' was not made by its realm; objects are read through realm.objects(_:) or made managed by realm.add(_:)")
        }
        return schema.properties[Int(slot - PropertySlots.general)]
    }
}
