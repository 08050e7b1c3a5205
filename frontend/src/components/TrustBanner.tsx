// The banner at the top of the canvas while the open file is not trusted:
// Weft did not write its bytes for the person and the person did not review
// them (cloned, downloaded, edited in another editor). Nothing in it that
// acts or decides where the run goes runs until it is reviewed; Review…
// opens the approval dialog on those steps (Run leads there too). Go
// decides the trust (service.FileTrust); the banner only shows it.
import { ShieldAlert } from 'lucide-react';
import { useStore } from '../store';
import { untrustedFile } from '../store/trustSlice';
import { runActions as defaultRunActions } from './run/actions';
import type { RunActions } from './run/runActions';

export function TrustBanner({ actions = defaultRunActions }: { actions?: Pick<RunActions, 'review'> }) {
  const file = useStore(untrustedFile);
  const busy = useStore((s) => s.runPhase === 'starting' || s.runPhase === 'running' || s.runPhase === 'stopping');
  if (!file) return null;
  return (
    <div className="trust-banner" role="status" data-testid="trust-banner">
      <ShieldAlert size={15} aria-hidden="true" />
      <span>
        <strong>Not reviewed:</strong> {file.why} — nothing in it runs until you review it
      </span>
      <button
        type="button"
        className="btn"
        onClick={() => void actions.review()}
        disabled={busy}
        data-testid="trust-review"
        title="Show what in this file acts or decides where the run goes, to approve it"
      >
        Review…
      </button>
    </div>
  );
}
