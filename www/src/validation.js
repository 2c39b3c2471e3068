// The page's side of validation (no YAML library here: the page stays light): the editors' group
// for the validator's marks and the output panel's note on invalid input.

/** The editors' marks' group for the validator's problems (the render's are 'render'). */
export const VALIDATION = 'validate';

/** The output panel's note on a render whose inputs fail validation; '' when none do. */
export function invalidNote(invalidInputs) {
  if (!invalidInputs?.length) return '';
  const list = invalidInputs.map((i) => `${i.editor} document ${i.doc} (${i.errors} error${i.errors === 1 ? '' : 's'})`);
  return `This render used input that fails validation: ${list.join(', ')}. The problems are marked in the editors.`;
}
