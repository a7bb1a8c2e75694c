"""lib.models.as_model: the one way a model enters every explainer (issue 32)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from lib import models
from lib import shapley as sh


def _fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = np.array(["a", "b", "c"])[np.argmax(X, axis=1)]
    return X, make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)


def test_a_classifier_is_its_predict_proba_named_by_class():
    X, model = _fitted()
    f = models.as_model(model)
    assert isinstance(f, models.ClassifierFunction) and f.output_names == ["a", "b", "c"]
    np.testing.assert_array_equal(f(X[:4]), model.predict_proba(X[:4]))
    assert models.as_model(f) is f
    assert models.as_model(model.predict_proba).output_names == ["a", "b", "c"]
    res = sh.exact_shapley(model, X[:2], X[:8])
    assert res.output_names == ["a", "b", "c"] and res.values.shape == (2, 3, 3)
    np.testing.assert_array_equal(res.values, sh.exact_shapley(model.predict_proba, X[:2], X[:8]).values)


def test_a_callable_is_used_as_it_is():
    def f(Z):
        return np.asarray(Z).sum(axis=1)

    assert models.as_model(f) is f
    assert models.model_and_output_names(f, None) == (f, None)
    assert models.model_and_output_names(f, ["total"]) == (f, ["total"])


def test_an_unfitted_classifier_is_refused():
    with pytest.raises(ValueError, match="fit it first"):
        models.as_model(LogisticRegression())
