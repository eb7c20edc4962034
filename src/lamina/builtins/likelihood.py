"""Minimizing a function and fitting a likelihood with exact derivatives: minimize, mle, vcov
(the numerics are optim/minimize.py's, stats/mle.py's and stats/intervals.py's)."""
from __future__ import annotations

from ..lang.runtime import calling
from ..optim import minimize as MIN
from ..stats import intervals as I
from ..stats import mle as MLE
from ..values import as_function
from .registry import FLOAT64_STATISTICS, Shape, builtin, refuse_tracked

ROSENBROCK = "rosen = x -> (1 - x[0]) ^ 2 + 100 * (x[1] - x[0] ^ 2) ^ 2\n"
POINT = ("x0 is a number, a tensor, or a record or list of them (any depth); f is called with a "
         "value of x0's structure, and the solution x has it too.")


@builtin("minimize", elsewhere={"optim": "R", "fminsearch": "MATLAB"},
         pure="a record", tracked="constant", any_rank=True, category="Optimizers & training",
         probes=["minimize(x -> sum((x - p) .^ 2), [0.0, 0.0, 0.0, 0.0])"],
         float32_probes=["minimize(x -> sum((x - p) .^ 2), float32([0.0, 0.0, 0.0, 0.0]))"],
         shapes=[Shape("minimize(f, x0)", "function returning a number, starting point",
                       "record {x, value, gradient, iterations, evaluations, converged, message}",
                       "The x near x0 where f is smallest, by BFGS with f's exact gradient."),
                 Shape("minimize(f, x0, method = \"newton\")", "the same, method name", "record",
                       "\"bfgs\", \"lbfgs\", \"newton\" (exact Hessian) or \"nelder_mead\" (no derivatives)."),
                 Shape("minimize(f, x0, method = \"lbfgs\", bounds = [0, Inf])", "the same, bounds shaped as x0",
                       "record", "Within bounds: [lower, upper] per number, tensor or record field."),
                 Shape("minimize(f, x0, data, ...)", "the same, extra arguments", "record",
                       "f is called as f(x, data, ...)."),
                 Shape("minimize(f, x0, tol = 1e-10, max_iter = 500)", "the same, tolerance, iterations",
                       "record", "SciPy's tol and maxiter.")],
         summary="Minimizes a function of a number, tensor or record of parameters with SciPy, "
                 "handing it the exact gradient from the tape (and for Newton's method the exact "
                 "Hessian); returns the solution with its value and whether it converged.",
         examples=[ROSENBROCK + "r = minimize(rosen, [-1.2, 1.0])\n"
                   "print(round(r.x, 6), r.converged)\nprint(r.value < 1e-10, r.iterations > 10)",
                   ROSENBROCK + "r = minimize(rosen, [-1.2, 1.0], method = \"newton\")\n"
                   "print(round(r.x, 8), r.converged)",
                   "f = p -> (p.a - 3) ^ 2 + (p.b + 1) ^ 2\n"
                   "r = minimize(f, {a = 0.0, b = 0.0}, method = \"lbfgs\", bounds = {b = [0, Inf]})\n"
                   "print(round(r.x.a, 6), round(r.x.b, 6))",
                   "r = minimize(x -> x ^ 4 - 3 * x, 0.5, max_iter = 1)\nprint(r.converged, r.message)"],
         notes="Methods (SciPy's optimize.minimize underneath): \"bfgs\" (BFGS, the default), "
               "\"lbfgs\" (L-BFGS-B, for many parameters or with bounds), \"newton\" (trust-exact: "
               "Newton steps within a trust region with the exact Hessian, one kept gradient and one "
               "sweep per parameter each iteration; safe where the Hessian is not positive definite) "
               "and \"nelder_mead\" (the simplex, which uses no derivatives: f runs on plain numbers "
               "and may use builtins that have none; bounds allowed). Every evaluation runs f once "
               "and sweeps the tape back once, giving the value and its exact gradient together. "
               + POINT + " The computation is in float64; tensors of x come back in x0's dtype. "
               "bounds: [lower, upper] (numbers, or tensors of the parameter's shape; Inf and -Inf "
               "for none) for a number or tensor x0, and for a record x0 a record of such pairs for "
               "the fields to bound; only \"lbfgs\" and \"nelder_mead\" take them (another method is "
               "a ValueError), and x0 must lie within them. tol and max_iter are SciPy's tol and "
               "maxiter (SciPy's defaults when not given: gtol = 1e-5 for BFGS). Extra positional "
               "arguments after x0 are passed to f after the point: minimize(f, x0, X, y) calls "
               "f(x, X, y). f must return a number: another value is a TypeError, and a value that "
               "is NaN or infinite at x0 a ValueError; later a NaN counts as Inf, which the line "
               "search steps back from, and so does a ValueError f raises at a trial point (a step out "
               "of its domain, such as a negative scale handed to normal()). A run that stops short of SciPy's convergence test (the "
               "iteration limit, a line search that cannot make progress) warns and reports "
               "converged = false with SciPy's message. Fields: x (shaped as x0), value (f at x), "
               "gradient (at x, shaped as x0; not for nelder_mead), iterations, evaluations (calls "
               "of f), converged, message. A tracked x0 is taken as its value, and no gradient flows "
               "through the optimization: when f reads tracked values, x, value and gradient depend on "
               "them, and a later grad against one of them refuses a loss computed from them (a "
               "TapeError, as for a gradient taken without keep), since where the minimum lies moves "
               "with them. At a minimum, f(detach(r.x)) has the right derivative for its value "
               "(the envelope theorem).")
def minimize(f, x0, *args, method="bfgs", bounds=None, tol=None, max_iter=None):
    refuse_tracked("minimize", args)
    f = calling(as_function(f, "minimize's first argument", "the function to minimize"),
                _calls("minimize", "f(x", "x0", args))
    return MIN.minimize(f, x0=x0, args=args, method=method, bounds=bounds, tol=tol, max_iter=max_iter)


def _calls(who: str, form: str, start: str, args: tuple) -> str:
    """How `who` calls its function: "minimize calls f(x)", or with the arguments given after the
    start, "minimize calls f(x, ...) with the 2 arguments given after x0"."""
    if not args:
        return f"{who} calls {form})"
    given = "the argument" if len(args) == 1 else f"the {len(args)} arguments"
    return f"{who} calls {form}, ...) with {given} given after {start}"


POISSON = ("x = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]\ny = [1, 0, 2, 3, 2, 5, 6, 9]\n"
           "X = hcat(ones(8), x)\n")
NORMAL = "y = [4.1, 5.3, 3.8, 6.2, 5.0, 4.4, 5.9, 4.7]\n"


@builtin("mle", pure="a value", tracked="refuses", any_rank=True, category="Statistics",
         probes=["mle(b -> (b - p[0]) ^ 2 / 2, 0.0)"],
         float64_results=(FLOAT64_STATISTICS, ("result.coef", "result.se", "result.z", "result.p", "result.gradient",
                                              "result.vcov", "result.hessian")),
         shapes=[Shape("mle(nll, start)", "function returning the negative log-likelihood, starting parameters",
                       "maximum likelihood fit", "Estimates, exact standard errors, z, p, log-likelihood, AIC."),
                 Shape("mle(nll, start, nobs = n)", "the same, number of observations", "maximum likelihood fit",
                       "BIC too (it needs n)."),
                 Shape("mle(nll, {mu = 0.0, sigma = 1.0}, transform = {sigma = \"log\"})",
                       "the same, a record of scales", "maximum likelihood fit",
                       "sigma fitted as log(sigma), reported as sigma by the delta method."),
                 Shape("mle(nll, start, data, ...)", "the same, extra arguments", "maximum likelihood fit",
                       "nll is called as nll(params, data, ...)."),
                 Shape("mle(nll, start, method = \"newton\")", "the same, minimize's method",
                       "maximum likelihood fit", "Another optimizer for the first stage.")],
         summary="Fits parameters by maximum likelihood: minimizes a negative log-likelihood written in "
                 "Lamina with exact gradients, and gives standard errors from the exact Hessian, with z "
                 "and p values, log-likelihood, AIC and BIC, printed as R's summary(mle).",
         examples=[POISSON + "nll = b -> sum(exp(X * b)) - y' * (X * b) + sum(lgamma(y + 1))\n"
                   "fit = mle(nll, [0.0, 0.0], nobs = 8)\nprint(fit)\n"
                   "print(round(fit.loglik - loglik(glm(x, y, family = \"poisson\")), 8))",
                   NORMAL + "nll = p -> -sum(normal(p.mu, p.sigma).logpdf(y))\n"
                   "fit = mle(nll, {mu = 4.0, sigma = 2.0}, transform = {sigma = \"log\"})\n"
                   "print(round(fit.coef.mu, 4), round(fit.coef.sigma, 4), round(fit.se.sigma, 4))\n"
                   "print(confint(fit))\nprint(round(vcov(fit), 6))"],
         notes="nll(params) returns the negative log-likelihood of the data at params, a number; params "
               "has start's structure (a number, a tensor, or a record or list of them). mle minimizes it "
               "by minimize (BFGS unless method says another; max_iter and tol are minimize's; "
               "method = \"newton\" needs far fewer iterations where nll is smooth over the whole "
               "parameter space: a Poisson regression of 100 parameters on 10,000 rows takes 5 "
               "trust-exact iterations, 0.37 s, against BFGS's 114 iterations, 1.6 s, and "
               "statsmodels' Poisson fit, Newton on its own analytic Hessian, 0.19 s), then takes "
               "Newton steps on the exact Hessian (from the tape, no finite differences) until the "
               "Newton decrement g'H^-1 g, twice nll's distance from its minimum, is below 1e-20: the "
               "fit has converged when it ends below 1e-8. The covariance of the estimates (vcov) is the "
               "inverse of the Hessian of nll there (the observed information), se the square roots of "
               "its diagonal, z = coef / se and p = 2 P(Z > |z|) two-sided, as R's optim(..., hessian = "
               "TRUE) with solve(hessian), summary(mle) and statsmodels' GenericLikelihoodModel give "
               "them. loglik = -nll at the estimates, df the number of parameters, aic = 2 df - 2 loglik, "
               "bic = log(nobs) df - 2 loglik (NaN without nobs, which mle cannot know). transform: a "
               "record naming fields of a record start (one name for every parameter of another "
               "start): \"log\" for a parameter above 0, \"logit\" for one between 0 and 1. Such a "
               "parameter is fitted as eta = log(sigma) and nll receives sigma; its estimate, se and "
               "vcov are reported for sigma by the delta method (J H_eta^-1 J', J = dsigma/deta), and "
               "confint takes its Wald interval on the fitting scale and maps it back, so it stays "
               "positive. Data: write nll as a closure over the program's variables, or pass them after "
               "start (mle(nll, start, X, y) calls nll(params, X, y)). A negative log-likelihood that is "
               "not finite at start is a ValueError (later, a NaN or a ValueError of nll at a trial point "
               "counts as Inf, and the line search steps back); a Hessian at the estimates that is singular or not "
               "positive definite gives NaN standard errors and a warning, as does a fit that does not "
               "converge (converged = false). Fields: coef, se, z, p and gradient (shaped as start), "
               "terms (the parameters' names, in vcov's order: a record's fields, theta[i] for a "
               "vector start), vcov, hessian (of nll on the fitting scale), loglik, aic, bic, df, nobs, "
               "converged, iterations (the optimizer's and the Newton steps), evaluations, method, "
               "message. confint(fit) (Wald, or method = \"profile\") and vcov(fit) take the fit; "
               "docs/likelihood.md shows a fit from start to table beside R's optim. Every operation nll uses must be "
               "differentiable twice (builtin pages say so under Gradients). An nll that reads tracked "
               "values is a TypeError: the estimates would depend on them as plain numbers.")
def mle(nll, start, *args, nobs=None, transform=None, method="bfgs", max_iter=None, tol=None):
    refuse_tracked("mle", args)
    nll = calling(as_function(nll, "mle's first argument", "the negative log-likelihood, a function of the parameters"),
                  _calls("mle", "nll(params", "start", args))
    return MLE.mle(nll, start=start, args=args, nobs=nobs, transform=transform, method=method,
                   max_iter=max_iter, tol=tol)


@builtin("vcov", pure="a matrix", tracked="refuses", category="Statistics",
         probes="takes a fitted model, which holds no tracked values",
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("vcov(fit)", "linear model, GLM or maximum likelihood fit", "p x p matrix",
                       "The covariance matrix of the estimates, in the order of fit.terms.")],
         summary="The estimated covariance matrix of a fitted model's coefficients, as R's vcov: its "
                 "diagonal holds the squared standard errors.",
         examples=[POISSON + "fit = glm(X[:, 1], y, family = \"poisson\")\nprint(round(vcov(fit), 6))\n"
                   "V = vcov(fit)\nprint(round(sqrt([V[0, 0], V[1, 1]]) - fit.se, 12))"],
         notes="For linreg sigma^2 (X'X)^-1 and for glm dispersion (X'WX)^-1 with the working weights of "
               "the last iteration (R's vcov.lm and vcov.glm); for mle the inverse of the Hessian of the "
               "negative log-likelihood at the estimates, through the delta method for transformed "
               "parameters (the field vcov). logreg(X, y) keeps no data to compute it from: fit glm(t, "
               "\"y ~ x\", family = \"binomial\") for the same model.")
def vcov(fit):
    refuse_tracked("vcov", (fit,))
    return I.vcov(fit)
