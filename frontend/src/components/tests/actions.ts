// The app's one set of Tests panel actions, on the app store and the real api.
import { api } from '../../api';
import { useStore } from '../../store';
import { makeTestsActions } from './testsActions';

export const testsActions = makeTestsActions(useStore, api);
