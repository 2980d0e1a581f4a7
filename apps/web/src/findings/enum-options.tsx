/** The `<option>`s of a select over API enum values (`false_positive` reads "false positive"). */
export function EnumOptions({ values }: { values: readonly string[] }) {
  return (
    <>
      {values.map((v) => (
        <option key={v} value={v}>
          {v.replace(/_/g, ' ')}
        </option>
      ))}
    </>
  );
}
