/// How a sort column is read and bound again: a float (dates, distances), text (names) or a field's value.
package enum SortValueKind: Sendable {
    case real, text, json
}
