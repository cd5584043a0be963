// Small pieces of English the world's history and descriptions are written with.

/** "a" or "an" before a word, by its first letter ("an adventuring company", "a mercenary band"). */
export const withArticle = (word: string): string => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
