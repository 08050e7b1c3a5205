// What waits before a schedule is made or updated, in the approval
// dialog: steps approved one by one are gathered, and the request is sent
// once every step is approved (or all at once).
import type { ApprovalStep } from '../../types';
import { ApprovalDialog } from '../run/ApprovalDialog';

export interface StepsWaiting {
  steps: ApprovalStep[];
  approved: string[];
  error?: string;
}

export function ScheduleApproval<P extends StepsWaiting>({
  pending,
  onChange,
  onSubmit,
}: {
  pending: P;
  /** the pending state with one more step approved, or null (cancelled) */
  onChange: (p: P | null) => void;
  /** send the request with these fingerprints approved */
  onSubmit: (approved: string[]) => void;
}) {
  return (
    <ApprovalDialog
      verb="schedule"
      steps={pending.steps}
      approved={pending.approved}
      error={pending.error}
      onApproveStep={(fp) => {
        const approved = [...pending.approved, fp];
        if (pending.steps.every((s) => approved.includes(s.fingerprint))) onSubmit(approved);
        else onChange({ ...pending, approved });
      }}
      onApproveAll={() => onSubmit(pending.steps.map((s) => s.fingerprint))}
      onCancel={() => onChange(null)}
    />
  );
}
