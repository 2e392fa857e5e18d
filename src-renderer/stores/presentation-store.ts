import { create } from 'zustand';

/** Where the choice is kept: this browser's storage, so a reload or the next demo keeps it. */
const KEY = 'mailyard.presentation-zoom';

function stored(): boolean {
  try {
    return window.localStorage.getItem(KEY) === 'on';
  } catch {
    return false;
  }
}

interface PresentationState {
  /** The presentation zoom: larger type and rows on every screen, readable from the back of a room. */
  on: boolean;
  toggle: () => void;
}

export const usePresentation = create<PresentationState>((set, get) => ({
  on: stored(),
  toggle: () => {
    const on = !get().on;
    set({ on });
    try {
      window.localStorage.setItem(KEY, on ? 'on' : 'off');
    } catch {
      // Storage refused (a private window): the zoom holds until the page is closed.
    }
  },
}));
