import { Page } from '../ui/page';
import { NotAvailable } from '../ui/states';

/** A dashboard URL of the spec whose API endpoints this server does not have yet. */
export default function Unavailable({ title, what }: { title: string; what: string }) {
  return <Page title={title}><NotAvailable what={what} /></Page>;
}
