// The app's one set of run actions, on the app store and the real api.
import { api } from '../../api';
import { useStore } from '../../store';
import { actions } from '../../store/actions';
import { makeRunActions } from './runActions';

export const runActions = makeRunActions(useStore, api, { openFile: async (path) => (await actions.openPath(path)) === true });
