"""Which module of lamina.builtins registers each builtin, so that a program imports only the
modules whose builtins it uses (registry.spec_of). Generated from the registry by `make docs`
(lamina/docs/builtin_index.py): do not edit."""

BY_MODULE = {
    "arrays": (
        "cat", "fill", "ndims", "permute", "squeeze", "stack", "unsqueeze",
    ),
    "attention": (
        "attention", "positional_embedding", "transformer_block",
    ),
    "autodiff": (
        "detach", "grad", "param", "tape_limit", "tape_reset", "tape_size", "track",
    ),
    "conv": (
        "avg_pool", "conv1d", "conv2d", "global_avg_pool", "max_pool",
    ),
    "core": (
        "append", "assert", "clock", "concat", "filter", "has", "help", "keys", "length", "map",
        "print", "print_options",
    ),
    "data": (
        "as_matrix", "best", "columns", "describe", "head", "nrows", "read_csv", "standardize",
        "table", "train_test_split", "write_csv",
    ),
    "dates": (
        "category", "date", "datetime", "day", "hour", "levels", "minute", "month", "second",
        "weekday", "year",
    ),
    "decompositions": (
        "chol", "eig", "eigh", "qr", "svd",
    ),
    "derivatives": (
        "hessian", "hvp", "jacobian",
    ),
    "distributions": (
        "beta_dist", "binomial", "cdf", "chi2", "exponential", "f_dist", "gamma_dist", "logpdf",
        "logpmf", "negative_binomial", "normal", "pdf", "poisson", "sample", "student_t",
        "uniform", "weibull",
    ),
    "dtypes": (
        "dtype", "float32", "float64",
    ),
    "figures": (
        "bar", "figure", "hist", "plot", "savefig", "scatter", "show",
    ),
    "glm": (
        "aic", "bic", "glm", "loglik",
    ),
    "gru": (
        "gru_cell", "gru_forward", "gru_init",
    ),
    "hypothesis": (
        "chisq_test", "corr_test", "fisher_test", "kruskal_test", "prop_test", "shapiro_test",
        "t_test", "wilcox_test",
    ),
    "layers": (
        "custom_layer", "embedding", "flatten", "gru", "layer_norm",
    ),
    "likelihood": (
        "minimize", "mle", "vcov",
    ),
    "linalg": (
        "det", "dot", "inv", "kron", "logdet", "norm", "outer", "solve", "trace",
    ),
    "logic": (
        "all", "any", "isfinite", "isinf", "isnan",
    ),
    "losses": (
        "binary_cross_entropy", "cross_entropy", "mae", "mse",
    ),
    "lr_schedules": (
        "lr_adaptive", "lr_cosine", "lr_plateau", "lr_step",
    ),
    "mathfns": (
        "abs", "ceil", "clamp", "cos", "exp", "expm1", "floor", "log", "log10", "log1p", "log2",
        "logsumexp", "max", "mean", "min", "mod", "prod", "round", "sign", "sin", "sqrt", "sum",
    ),
    "metrics": (
        "accuracy", "confusion_matrix", "f1", "precision", "r2_score", "recall",
    ),
    "model_checks": (
        "anova", "confint", "fitted", "influence", "residuals",
    ),
    "models": (
        "compile", "evaluate", "fit", "input", "load_model", "predict", "quick_mlp",
        "save_model", "summary",
    ),
    "nn": (
        "dense", "dropout", "gelu", "leaky_relu", "log_softmax", "log_softmax_rows", "relu",
        "sigmoid", "silu", "softmax", "softmax_rows", "tanh",
    ),
    "optimizers": (
        "adadelta", "adagrad", "adam", "adamax", "adamw", "nadam", "nesterov_sgd",
        "optimizer_step", "rmsprop", "sgd",
    ),
    "parallel": (
        "parallel_map", "sweep",
    ),
    "products": (
        "einsum", "matmul",
    ),
    "program": (
        "args", "error", "exit", "warn", "warnings",
    ),
    "random": (
        "rand", "randn", "seed",
    ),
    "recurrent": (
        "batch_norm", "lstm", "lstm_cell", "lstm_forward",
    ),
    "regression": (
        "kmeans", "linreg", "logreg", "pca", "polyfit", "polyval",
    ),
    "sampling": (
        "choice", "permutation", "randint", "shuffle",
    ),
    "sequences": (
        "argsort", "cumprod", "diff", "reverse",
    ),
    "special": (
        "digamma", "lbeta", "lgamma", "polygamma", "trigamma",
    ),
    "sql": (
        "read_parquet", "sql", "write_parquet",
    ),
    "stats": (
        "corr", "cov", "cumsum", "histogram", "median", "quantile", "sort", "std", "unique",
        "var", "zscore",
    ),
    "tables": (
        "aggregate", "count", "drop_columns", "drop_missing", "group_by", "merge", "sort_rows",
        "with_column",
    ),
    "tensors": (
        "argmax", "argmin", "diag", "eye", "find", "hcat", "linspace", "ones", "range",
        "reshape", "size", "transpose", "vcat", "zeros",
    ),
    "text": (
        "contains", "format", "join", "lower", "number", "replace", "split", "string", "trim",
        "type", "upper",
    ),
    "training": (
        "train_loop",
    ),
}
MODULES = {name: module for module, names in BY_MODULE.items() for name in names}
