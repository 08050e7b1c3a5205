// Keeps keyboard focus inside a modal dialog: Tab from its last control
// goes to its first, Shift+Tab from the first to the last, and focus that
// has left it (a click behind a backdrop) comes back on the next Tab. When
// the dialog closes, focus goes back to what had it when the dialog opened
// (its opener), not to the page body.
import { useEffect, useState, type RefObject } from 'react';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function focusables(box: HTMLElement): HTMLElement[] {
  return [...box.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.closest('[hidden], [inert]') && el.getAttribute('aria-hidden') !== 'true');
}

/** useFocusTrap traps focus in ref's element while the calling component
 * is mounted; a dialog that stays mounted while closed passes open, and
 * closing it counts as the end. */
export function useFocusTrap(ref: RefObject<HTMLElement | null>, open = true): void {
  // The opener: what had focus as the dialog opened, read while rendering
  // (by the time effects run, an autoFocus field inside has taken focus).
  const [opener, setOpener] = useState<Element | null>(() => (open ? document.activeElement : null));
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    setOpener(open ? document.activeElement : null);
  }
  useEffect(() => {
    if (!open || !(opener instanceof HTMLElement) || opener === document.body) return;
    const box = ref.current;
    return () => {
      // Only when focus was in the dialog or is lost; never take it from
      // where the person has since put it.
      const now = document.activeElement;
      const lost = !now || now === document.body || !now.isConnected || (!!box && box.contains(now));
      if (lost && opener.isConnected) opener.focus();
    };
  }, [open, opener, ref]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const box = ref.current;
      if (e.key !== 'Tab' || !box) return;
      const list = focusables(box);
      if (!list.length) {
        e.preventDefault();
        return;
      }
      const first = list[0];
      const last = list[list.length - 1];
      const active = document.activeElement as HTMLElement | null;
      const inside = !!active && box.contains(active);
      if (!inside) {
        e.preventDefault();
        (e.shiftKey ? last : first).focus();
      } else if (e.shiftKey && active === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && active === last) {
        e.preventDefault();
        first.focus();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [ref]);
}
