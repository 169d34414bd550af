extension Realm {
    /// Replaces each object `object` links to that this realm does not manage (an unmanaged
    /// one, or one of another realm) by a copy, and so on through the copies: `create` copies
    /// the objects its value holds, as RealmSwift does, and leaves the originals as they were.
    /// `copies` maps an original to its copy, so an object reached twice (or a cycle) is copied
    /// once; `object` itself is new and may be in it already. (Objects hash by stored identity,
    /// so two accessors of one object of another realm are one original.)
    func copyLinkedObjects(of object: Object, schema: ObjectSchema, copies: inout [Object: Object]) {
        for property in schema.storedProperties where property.type == .object {
            let current = object.value(forKey: property.name)
            if property.isCollection {
                guard let sequence = current as? any Sequence else { continue }
                let elements = anyElements(of: sequence).compactMap { $0 as? Object }
                guard elements.contains(where: needsCopy) else { continue }
                object.setValue(elements.map { copy($0, copies: &copies) }, forKey: property.name)
            } else if let linked = current as? Object, needsCopy(linked) {
                object.setValue(copy(linked, copies: &copies), forKey: property.name)
            }
        }
    }

    /// `value`, with an object this realm does not manage (alone or in an array) replaced by a
    /// copy, for a property `create` updates in place.
    func copyingForeignObjects(in value: Any?, copies: inout [Object: Object]) -> Any? {
        if let object = value as? Object {
            return needsCopy(object) ? copy(object, copies: &copies) : object
        }
        if let sequence = value as? any Sequence {
            let elements = anyElements(of: sequence)
            guard elements.contains(where: { ($0 as? Object).map(needsCopy) ?? false }) else { return value }
            return elements.map { ($0 as? Object).map { copy($0, copies: &copies) } ?? $0 }
        }
        return value
    }

    /// Whether `object` is not managed by this realm (unmanaged, or read through another).
    private func needsCopy(_ object: Object) -> Bool {
        object.managed?.realm !== self
    }

    /// A new unmanaged object of `original`'s class with its values, the objects it links to
    /// copied in turn; `original` itself when this realm manages it.
    private func copy(_ original: Object, copies: inout [Object: Object]) -> Object {
        guard needsCopy(original) else { return original }
        if let made = copies[original] { return made }
        let type = Swift.type(of: original)
        let made = type.init()
        copies[original] = made
        if let problem = made.assign(original) { stop(problem) }
        copyLinkedObjects(of: made, schema: original.objectSchema, copies: &copies)
        return made
    }
}
