// Small pieces of English the world's history and descriptions are written with.

/** "a" or "an" before a word, by its first letter ("an adventuring company", "a mercenary band"). */
export const withArticle = (word: string): string => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;

const ROMAN: Array<[number, string]> = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];

/** The numeral that tells the `n`th bearer of a name from the first: '' for the first, ' II' for the second, ' XIV' for the fourteenth. */
export function numeral(n: number): string {
  if (n <= 1) return '';
  let rest = Math.floor(n);
  let out = '';
  for (const [value, letters] of ROMAN) {
    for (; rest >= value; rest -= value) out += letters;
  }
  return ` ${out}`;
}
