import { CopyButton } from '../ui/copy';

/** The server's address as the CLI and the action take it (`--server`, `server:`): this dashboard's origin. */
function serverUrl(): string {
  return window.location.origin;
}

/**
 * A GitHub Actions workflow for the composite action at the repository root (action.yml; inputs
 * as docs/ci.md "GitHub Actions"), the key read from the secret PLANWARDEN_API_KEY. Checks only:
 * no model and no provider key to set up.
 */
export function githubActionsSnippet(server: string): string {
  return `# .github/workflows/planwarden.yml
name: planwarden
on: pull_request
permissions:
  contents: read
  security-events: write   # upload-sarif
jobs:
  plan-review:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: hashicorp/setup-terraform@v3
      - run: terraform init -input=false && terraform plan -out=tfplan && terraform show -json tfplan > plan.json
      - uses: your-org/planwarden@v1   # the Planwarden repository (action.yml at its root), at a tag you trust
        with:
          file: plan.json
          server: ${server}
          api-key: \${{ secrets.PLANWARDEN_API_KEY }}
          fail-on: high
`;
}

/** A GitLab CI job running the planwarden CLI (docs/ci.md "GitLab CI"), the key from the masked variable PLANWARDEN_API_KEY. */
export function gitlabSnippet(server: string): string {
  return `# .gitlab-ci.yml
planwarden:
  stage: test
  image: node:20
  variables:
    PLANWARDEN_SERVER: ${server}
    # PLANWARDEN_API_KEY: a masked CI/CD variable holding the service key
  before_script:
    - git clone --depth 1 --branch v1 https://github.com/your-org/planwarden.git /opt/planwarden
    - npm ci --prefix /opt/planwarden --omit=dev --no-audit --no-fund
  script:
    # plan.json from an earlier job's artifacts (terraform show -json tfplan > plan.json)
    - node /opt/planwarden/server/bin/planwarden.js analyze plan.json --server "$PLANWARDEN_SERVER"
        --format sarif --output planwarden.sarif --fail-on high
  artifacts:
    when: always
    paths:
      - planwarden.sarif
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
`;
}

/** One snippet with its copy button. */
function Snippet({ title, text }: { title: string; text: string }) {
  return (
    <details className="panel">
      <summary>{title}</summary>
      <pre className="snippet">{text}</pre>
      <CopyButton value={text} label={`Copy ${title}`} />
    </details>
  );
}

/** How to use a service key in CI: store it as the secret PLANWARDEN_API_KEY, then one of the snippets. */
export function CiSnippets() {
  const server = serverUrl();
  return (
    <section aria-labelledby="ci-snippets">
      <h2 id="ci-snippets">Use a key in CI</h2>
      <p>
        Store the key as the secret <code>PLANWARDEN_API_KEY</code> of the repository or project, then add one of these. Both run the deterministic checks and
        fail on an open finding of high severity or above.
      </p>
      <Snippet title="GitHub Actions workflow" text={githubActionsSnippet(server)} />
      <Snippet title="GitLab CI job" text={gitlabSnippet(server)} />
    </section>
  );
}
