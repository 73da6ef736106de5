/// A full-text condition: every word, any word, or a search as the user types it.
package enum TextMatch {
    case allWords([Substring])
    case anyWord([Substring])
    case asTyped([TypedSearchTerms.Term])
}
