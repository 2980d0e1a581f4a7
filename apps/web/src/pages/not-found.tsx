import { Link } from 'react-router';
import { Page } from '../ui/page';

export default function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        No dashboard page lives at this address. <Link to="/overview">Go to the overview</Link>.
      </p>
    </Page>
  );
}
