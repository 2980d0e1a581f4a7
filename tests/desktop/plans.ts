import { corpusFile } from '../corpus';

const SOURCE = 'tfplan-json/infracost-aws-modules-tf014-large.json';

interface Plan {
  resource_changes: { address: string; name: string; change: { actions: string[] } }[];
  [key: string]: unknown;
}

/**
 * A real Terraform JSON plan (the corpus's infracost plan) grown to about `targetBytes` by
 * repeating its changing resources under new names (`<name>_copyN`), so every copy is its own
 * unit with its own hash. The corpus file is left as it is; the plan stays valid `terraform show -json`.
 * Returns the plan text and how many resource changes it holds.
 */
export function scaledPlan(targetBytes: number): { text: string; changes: number } {
  const plan = JSON.parse(corpusFile(SOURCE).toString('utf8')) as Plan;
  const changing = plan.resource_changes.filter((r) => !r.change.actions.includes('no-op'));
  const base = Buffer.byteLength(JSON.stringify(plan));
  const perCopy = Buffer.byteLength(JSON.stringify(changing)) + 200;
  const copies = Math.max(0, Math.floor((targetBytes - base) / perCopy));
  for (let n = 1; n <= copies; n += 1) {
    for (const r of changing) {
      plan.resource_changes.push({ ...r, name: `${r.name}_copy${n}`, address: r.address.replace(r.name, `${r.name}_copy${n}`) });
    }
  }
  return { text: JSON.stringify(plan), changes: plan.resource_changes.length };
}
