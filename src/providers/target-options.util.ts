/**
 * A target's own network settings (`targets[i].options`) as a draft or publish input carries them;
 * empty when none were given.
 */
export function optionsOf(carrier: object): Record<string, unknown> {
  const options = (carrier as { options?: unknown }).options;
  return options && typeof options === 'object' && !Array.isArray(options) ? (options as Record<string, unknown>) : {};
}
