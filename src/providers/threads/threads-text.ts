/**
 * Characters of a Threads post as Threads counts them for its 500-character limit: one per
 * character (code point), except emojis, which count their UTF-8 bytes (a 😀 counts 4; a joiner or
 * variation selector inside an emoji sequence 3).
 */
const EMOJI = /^(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator})$/u;
/** Zero-width joiner, variation selector 16 and the keycap mark, which join emoji sequences. */
const EMOJI_JOINERS = new Set([0x200d, 0xfe0f, 0x20e3]);
const isEmojiPart = (char: string) => EMOJI.test(char) || EMOJI_JOINERS.has(char.codePointAt(0)!);

export function countThreadsCharacters(text: string): number {
  let count = 0;
  for (const char of text.normalize('NFC')) {
    count += isEmojiPart(char) ? Buffer.byteLength(char, 'utf8') : 1;
  }
  return count;
}
