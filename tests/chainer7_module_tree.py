"""Chainer 7.8.1's public module tree, as data, and what cpuframe lacks.

``TREE`` maps each public module path of Chainer 7.8.1 (no path component
starting with ``_``; chainerx, chainermn and onnx_chainer are separate
packages) to the public names it defines or, for a package, re-exports
from Chainer's own modules.  It was read from the sdist's source with
``ast`` (names bound by ``def``, ``class`` and assignments, in ``if``/``try``
bodies too), not by importing Chainer.

``NOT_PROVIDED_MODULES`` and ``NOT_PROVIDED_NAMES`` are what cpuframe does
not have yet; test_chainer_module_tree.py checks that everything else
resolves and that these really are missing, so the lists shrink as work
lands.
"""
# ruff: noqa: E501

TREE = {
    'chainer': (
        'AbstractSerializer Chain ChainList DebugMode Deserializer DeviceResident '
        'DictSummary Distribution Fallback Function FunctionAdapter FunctionHook '
        'FunctionNode GradientMethod Initializer Link LinkHook Optimizer Parameter '
        'Reporter Sequential Serializer Summary UpdateRule Variable array as_array '
        'as_variable backends backward basic_math config cross_entropy cuda dataset '
        'datasets disable_experimental_feature_warning distributions '
        'force_backprop_mode function_hooks functions get_array_types '
        'get_compute_mode get_cpu_array_types get_current_reporter get_device '
        'get_dtype get_function_hooks global_config grad graph_optimizations '
        'initializers is_arrays_compatible is_debug iterators kl_divergence links '
        'mixed16 no_backprop_mode optimizers print_runtime_info register_kl report '
        'report_scope serializers set_debug should_use_cudnn '
        'should_use_cudnn_tensor_core static_code static_graph training using_config '
        'using_device variable warnings'
    ),
    'chainer.backend': (
        'copyto get_array_module get_device get_device_from_array using_device'
    ),
    'chainer.backends': 'cuda intel64',
    'chainer.backends.cuda': (
        'DummyDevice DummyDeviceType GpuDevice available check_cuda_available '
        'clear_memo copy cudnn cudnn_enabled elementwise fuse get_array_module '
        'get_cudnn_dropout_states get_cudnn_dropout_states_core get_device '
        'get_device_from_array get_device_from_id get_max_workspace_size libcudnn '
        'memoize memory_pool pinned_memory_pool raw reduce set_max_workspace_size '
        'should_use_cudnn should_use_cudnn_tensor_core to_cpu to_gpu'
    ),
    'chainer.backends.intel64': (
        'Intel64Device check_ideep_available inputs_all_ready is_ideep_available '
        'should_use_ideep'
    ),
    'chainer.computational_graph': (
        'ComputationalGraph DotNode build_computational_graph'
    ),
    'chainer.configuration': (
        'GlobalConfig LocalConfig config global_config using_config'
    ),
    'chainer.cuda': '',
    'chainer.dataset': (
        'ConcatWithAsyncTransfer Converter DatasetMixin Iterator TabularDataset '
        'cache_or_load_file cached_download concat_examples converter '
        'get_dataset_directory get_dataset_root set_dataset_root to_device'
    ),
    'chainer.dataset.convert': (
        'ConcatWithAsyncTransfer Converter Conveyor concat_examples '
        'concat_examples_func converter to_device'
    ),
    'chainer.dataset.dataset_mixin': 'DatasetMixin',
    'chainer.dataset.download': (
        'cache_or_load_file cached_download get_dataset_directory get_dataset_root '
        'set_dataset_root'
    ),
    'chainer.dataset.iterator': 'Iterator',
    'chainer.dataset.tabular': 'DelegateDataset from_data',
    'chainer.dataset.tabular.delegate_dataset': 'DelegateDataset',
    'chainer.dataset.tabular.from_data': 'from_data',
    'chainer.dataset.tabular.tabular_dataset': 'TabularDataset',
    'chainer.datasets': (
        'ConcatenatedDataset DictDataset ImageDataset LabeledImageDataset '
        'LabeledZippedImageDataset MultiZippedImageDataset PickleDataset '
        'PickleDatasetWriter SubDataset TextDataset TransformDataset TupleDataset '
        'ZippedImageDataset get_cifar10 get_cifar100 get_cross_validation_datasets '
        'get_cross_validation_datasets_random get_fashion_mnist '
        'get_fashion_mnist_labels get_kuzushiji_mnist get_kuzushiji_mnist_labels '
        'get_mnist get_ptb_words get_ptb_words_vocabulary get_svhn '
        'open_pickle_dataset open_pickle_dataset_writer split_dataset split_dataset_n '
        'split_dataset_n_random split_dataset_random'
    ),
    'chainer.datasets.cifar': 'get_cifar10 get_cifar100',
    'chainer.datasets.concatenated_dataset': 'ConcatenatedDataset',
    'chainer.datasets.dict_dataset': 'DictDataset',
    'chainer.datasets.fashion_mnist': 'get_fashion_mnist get_fashion_mnist_labels',
    'chainer.datasets.image_dataset': (
        'ImageDataset LabeledImageDataset LabeledZippedImageDataset '
        'MultiZippedImageDataset ZippedImageDataset available'
    ),
    'chainer.datasets.kuzushiji_mnist': (
        'get_kuzushiji_mnist get_kuzushiji_mnist_labels'
    ),
    'chainer.datasets.mnist': 'get_mnist',
    'chainer.datasets.pickle_dataset': (
        'PickleDataset PickleDatasetWriter open_pickle_dataset '
        'open_pickle_dataset_writer'
    ),
    'chainer.datasets.ptb': 'get_ptb_words get_ptb_words_vocabulary',
    'chainer.datasets.sub_dataset': (
        'SubDataset get_cross_validation_datasets '
        'get_cross_validation_datasets_random split_dataset split_dataset_n '
        'split_dataset_n_random split_dataset_random'
    ),
    'chainer.datasets.svhn': 'get_svhn',
    'chainer.datasets.text_dataset': 'TextDataset',
    'chainer.datasets.transform_dataset': 'TransformDataset',
    'chainer.datasets.tuple_dataset': 'TupleDataset',
    'chainer.device_resident': 'DeviceResident DeviceResidentsVisitor',
    'chainer.distribution': 'Distribution cross_entropy kl_divergence register_kl',
    'chainer.distributions': (
        'Bernoulli Beta Categorical Cauchy Chisquare Dirichlet Exponential Gamma '
        'Geometric Gumbel Independent Laplace LogNormal MultivariateNormal Normal '
        'OneHotCategorical Pareto Poisson Uniform'
    ),
    'chainer.distributions.bernoulli': 'Bernoulli BernoulliLogProb',
    'chainer.distributions.beta': 'Beta',
    'chainer.distributions.categorical': 'Categorical',
    'chainer.distributions.cauchy': 'Cauchy',
    'chainer.distributions.chisquare': 'Chisquare',
    'chainer.distributions.dirichlet': 'Dirichlet',
    'chainer.distributions.exponential': 'Exponential',
    'chainer.distributions.gamma': 'Gamma',
    'chainer.distributions.geometric': 'Geometric',
    'chainer.distributions.gumbel': 'EULER Gumbel',
    'chainer.distributions.independent': 'Independent',
    'chainer.distributions.laplace': 'Laplace LaplaceCDF LaplaceICDF',
    'chainer.distributions.log_normal': 'LOGPROBC LogNormal',
    'chainer.distributions.multivariate_normal': (
        'ENTROPYC LOGPROBC MultivariateNormal TriangularInv available_cpu'
    ),
    'chainer.distributions.normal': 'ENTROPYC LOGPROBC Normal PROBC',
    'chainer.distributions.one_hot_categorical': 'OneHotCategorical',
    'chainer.distributions.pareto': 'Pareto',
    'chainer.distributions.poisson': 'Poisson',
    'chainer.distributions.uniform': 'Uniform',
    'chainer.distributions.utils': 'ModifiedXLogX',
    'chainer.exporters': 'caffe',
    'chainer.exporters.caffe': 'export',
    'chainer.function': 'Function FunctionAdapter force_backprop_mode no_backprop_mode',
    'chainer.function_hook': 'FunctionHook',
    'chainer.function_hooks': (
        'CUDAProfileHook CupyMemoryProfileHook PrintHook TimerHook'
    ),
    'chainer.function_hooks.cuda_profile': 'CUDAProfileHook',
    'chainer.function_hooks.cupy_memory_profile': (
        'CupyMemoryCumulativeHook CupyMemoryProfileHook MemoryHook '
        'memory_hook_available'
    ),
    'chainer.function_hooks.debug_print': 'PrintHook',
    'chainer.function_hooks.timer': 'TimerHook',
    'chainer.function_node': 'FunctionNode grad',
    'chainer.functions': (
        'absolute absolute_error accuracy add arccos arcsin arctan arctan2 arctanh '
        'argmax argmax_crf1d argmin as_strided average average_pooling_1d '
        'average_pooling_2d average_pooling_3d average_pooling_nd batch_det batch_inv '
        'batch_l2_norm_squared batch_matmul batch_normalization batch_renormalization '
        'bernoulli_nll bias bilinear binary_accuracy black_out broadcast broadcast_to '
        'cast ceil cholesky classification_summary clip clipped_relu concat '
        'connectionist_temporal_classification contrastive convolution_1d '
        'convolution_2d convolution_3d convolution_nd copy cos cosh crelu crf1d '
        'cross_covariance cumprod cumsum deconvolution_1d deconvolution_2d '
        'deconvolution_3d deconvolution_nd decorrelated_batch_normalization decov '
        'deformable_convolution_2d_sampler depth2space depthwise_convolution_2d det '
        'diagonal digamma dilated_convolution_2d '
        'discriminative_margin_based_clustering_loss dropout dstack einsum elu '
        'embed_id erf erfc erfcinv erfcx erfinv exp expand_dims expm1 f1_score fft '
        'fix fixed_batch_normalization fixed_batch_renormalization '
        'fixed_decorrelated_batch_normalization flatten flip fliplr flipud floor fmod '
        'forget gaussian gaussian_kl_divergence gaussian_nll get_item '
        'group_normalization gumbel_softmax hard_sigmoid hinge hstack huber_loss '
        'identity ifft im2col inv layer_normalization leaky_relu lgamma linear '
        'linear_interpolate local_convolution_2d local_response_normalization log '
        'log10 log1p log2 log_ndtr log_softmax logsumexp lstm matmul max '
        'max_pooling_1d max_pooling_2d max_pooling_3d max_pooling_nd maximum maxout '
        'mean mean_absolute_error mean_squared_error min minimum moveaxis '
        'n_step_bigru n_step_bilstm n_step_birnn n_step_gru n_step_lstm n_step_rnn '
        'ndtr ndtri negative_sampling normalize pad pad_sequence permutate polygamma '
        'precision prelu prod r2_score recall relu relu6 repeat reshape resize_images '
        'roi_average_align_2d roi_average_pooling_2d roi_max_align_2d '
        'roi_max_pooling_2d roi_pooling_2d rollaxis rrelu rsqrt scale scatter_add '
        'select_item selu separate shift sigmoid sigmoid_cross_entropy sign '
        'simplified_dropconnect sin sinh slstm softmax softmax_cross_entropy softplus '
        'space2depth sparse_matmul spatial_pyramid_pooling_2d '
        'spatial_transformer_grid spatial_transformer_sampler split_axis sqrt square '
        'squared_difference squared_error squeeze stack sum sum_to swapaxes swish tan '
        'tanh tensordot tile transpose transpose_sequence tree_lstm triplet '
        'unpooling_1d unpooling_2d unpooling_3d unpooling_nd upsampling_2d vstack '
        'where zeta zoneout'
    ),
    'chainer.functions.activation': '',
    'chainer.functions.activation.clipped_relu': (
        'ClippedReLU ClippedReLUGrad2 ClippedReLUGrad3 clipped_relu cudnn relu6'
    ),
    'chainer.functions.activation.crelu': 'CReLU crelu',
    'chainer.functions.activation.elu': 'ELU ELUGrad elu',
    'chainer.functions.activation.hard_sigmoid': (
        'HardSigmoid HardSigmoidGrad hard_sigmoid'
    ),
    'chainer.functions.activation.leaky_relu': 'LeakyReLU leaky_relu',
    'chainer.functions.activation.log_softmax': (
        'LogSoftmax LogSoftmaxGrad cudnn log_softmax logsumexp'
    ),
    'chainer.functions.activation.maxout': 'maxout',
    'chainer.functions.activation.prelu': 'PReLUFunction PReLUFunctionGrad prelu',
    'chainer.functions.activation.relu': 'ReLU ReLUGrad2 ReLUGradCudnn cudnn relu',
    'chainer.functions.activation.rrelu': 'RReLU rrelu',
    'chainer.functions.activation.selu': 'selu',
    'chainer.functions.activation.sigmoid': 'Sigmoid SigmoidGrad cudnn sigmoid',
    'chainer.functions.activation.softmax': 'Softmax cudnn softmax',
    'chainer.functions.activation.softplus': 'Softplus SoftplusGrad softplus',
    'chainer.functions.activation.swish': 'Swish SwishGrad swish',
    'chainer.functions.activation.tanh': 'Tanh TanhGrad cudnn tanh',
    'chainer.functions.array': '',
    'chainer.functions.array.as_strided': (
        'AsStrided AsStridedGrad TensorGeometry as_strided index_dtype'
    ),
    'chainer.functions.array.broadcast': 'Broadcast BroadcastTo broadcast broadcast_to',
    'chainer.functions.array.cast': 'Cast cast',
    'chainer.functions.array.concat': 'Concat concat',
    'chainer.functions.array.copy': 'Copy copy',
    'chainer.functions.array.depth2space': 'Depth2Space depth2space',
    'chainer.functions.array.diagonal': 'Diagonal DiagonalGrad diagonal',
    'chainer.functions.array.dstack': 'Dstack dstack',
    'chainer.functions.array.expand_dims': 'ExpandDims expand_dims',
    'chainer.functions.array.flatten': 'flatten',
    'chainer.functions.array.flip': 'Flip flip',
    'chainer.functions.array.fliplr': 'FlipLR fliplr',
    'chainer.functions.array.flipud': 'FlipUD flipud',
    'chainer.functions.array.get_item': (
        'GetItem GetItemGrad get_item install_variable_get_item'
    ),
    'chainer.functions.array.hstack': 'Hstack hstack',
    'chainer.functions.array.im2col': 'Im2Col Im2ColGrad im2col',
    'chainer.functions.array.moveaxis': 'Moveaxis moveaxis',
    'chainer.functions.array.pad': 'Pad pad',
    'chainer.functions.array.pad_sequence': 'PadSequence pad_sequence',
    'chainer.functions.array.permutate': 'Permutate permutate',
    'chainer.functions.array.repeat': 'Repeat RepeatGrad repeat',
    'chainer.functions.array.reshape': 'Reshape reshape',
    'chainer.functions.array.resize_images': (
        'ResizeImages ResizeImagesGrad compute_indices_and_weights '
        'interpolate_bilinear_cpu interpolate_bilinear_gpu '
        'interpolate_grad_bilinear_cpu interpolate_grad_bilinear_gpu resize_images'
    ),
    'chainer.functions.array.rollaxis': 'Rollaxis rollaxis',
    'chainer.functions.array.scatter_add': 'ScatterAdd scatter_add',
    'chainer.functions.array.select_item': 'Assign SelectItem select_item',
    'chainer.functions.array.separate': 'Separate separate',
    'chainer.functions.array.space2depth': 'Space2Depth space2depth',
    'chainer.functions.array.spatial_transformer_grid': (
        'SpatialTransformerGrid cudnn libcudnn spatial_transformer_grid'
    ),
    'chainer.functions.array.spatial_transformer_sampler': (
        'SpatialTransformerSampler cudnn libcudnn spatial_transformer_sampler'
    ),
    'chainer.functions.array.split_axis': 'SplitAxis split_axis',
    'chainer.functions.array.squeeze': 'Squeeze argone squeeze',
    'chainer.functions.array.stack': 'Stack stack',
    'chainer.functions.array.swapaxes': 'Swapaxes swapaxes',
    'chainer.functions.array.tile': 'Tile tile',
    'chainer.functions.array.transpose': 'Transpose transpose',
    'chainer.functions.array.transpose_sequence': (
        'TransposeSequence transpose_sequence'
    ),
    'chainer.functions.array.vstack': 'Vstack vstack',
    'chainer.functions.array.where': 'Where where',
    'chainer.functions.connection': '',
    'chainer.functions.connection.bilinear': (
        'BilinearFunction BilinearFunctionGrad bilinear'
    ),
    'chainer.functions.connection.convolution_2d': (
        'Convolution2DFunction Convolution2DGradW convolution_2d'
    ),
    'chainer.functions.connection.convolution_nd': (
        'ConvolutionND ConvolutionNDGradW convolution_1d convolution_3d '
        'convolution_nd'
    ),
    'chainer.functions.connection.deconvolution_2d': (
        'Deconvolution2DFunction deconvolution_2d'
    ),
    'chainer.functions.connection.deconvolution_nd': (
        'DeconvolutionND deconvolution_1d deconvolution_3d deconvolution_nd'
    ),
    'chainer.functions.connection.deformable_convolution_2d_sampler': (
        'deformable_convolution_2d_sampler'
    ),
    'chainer.functions.connection.depthwise_convolution_2d': 'depthwise_convolution_2d',
    'chainer.functions.connection.dilated_convolution_2d': 'dilated_convolution_2d',
    'chainer.functions.connection.embed_id': 'EmbedIDFunction EmbedIDGrad embed_id',
    'chainer.functions.connection.linear': (
        'LinearFunction LinearGradData LinearGradWeight linear'
    ),
    'chainer.functions.connection.local_convolution_2d': (
        'LocalConvolution2DFunction local_convolution_2d'
    ),
    'chainer.functions.connection.shift': 'Shift shift',
    'chainer.functions.evaluation': '',
    'chainer.functions.evaluation.accuracy': 'Accuracy accuracy',
    'chainer.functions.evaluation.binary_accuracy': 'BinaryAccuracy binary_accuracy',
    'chainer.functions.evaluation.classification_summary': (
        'ClassificationSummary classification_summary f1_score fbeta_score precision '
        'recall'
    ),
    'chainer.functions.evaluation.r2_score': 'R2_score r2_score',
    'chainer.functions.loss': '',
    'chainer.functions.loss.absolute_error': 'AbsoluteError absolute_error',
    'chainer.functions.loss.black_out': 'black_out',
    'chainer.functions.loss.contrastive': 'Contrastive contrastive',
    'chainer.functions.loss.crf1d': 'argmax_crf1d crf1d',
    'chainer.functions.loss.cross_covariance': 'CrossCovariance cross_covariance',
    'chainer.functions.loss.ctc': (
        'ConnectionistTemporalClassification connectionist_temporal_classification'
    ),
    'chainer.functions.loss.decov': 'DeCov decov',
    'chainer.functions.loss.discriminative_loss': (
        'DiscriminativeMarginBasedClusteringLoss '
        'discriminative_margin_based_clustering_loss'
    ),
    'chainer.functions.loss.hinge': 'Hinge hinge',
    'chainer.functions.loss.huber_loss': 'HuberLoss huber_loss',
    'chainer.functions.loss.mean_absolute_error': (
        'MeanAbsoluteError mean_absolute_error'
    ),
    'chainer.functions.loss.mean_squared_error': 'MeanSquaredError mean_squared_error',
    'chainer.functions.loss.negative_sampling': (
        'NegativeSamplingFunction NegativeSamplingFunctionGrad negative_sampling'
    ),
    'chainer.functions.loss.sigmoid_cross_entropy': (
        'SigmoidCrossEntropy SigmoidCrossEntropyGrad sigmoid_cross_entropy'
    ),
    'chainer.functions.loss.softmax_cross_entropy': (
        'SoftmaxCrossEntropy softmax_cross_entropy'
    ),
    'chainer.functions.loss.squared_error': (
        'SquaredError squared_difference squared_error'
    ),
    'chainer.functions.loss.triplet': 'Triplet triplet',
    'chainer.functions.loss.vae': 'bernoulli_nll gaussian_kl_divergence gaussian_nll',
    'chainer.functions.math': '',
    'chainer.functions.math.arctanh': 'Arctanh arctanh',
    'chainer.functions.math.average': 'Mean average',
    'chainer.functions.math.basic_math': (
        'Absolute AbsoluteGrad Add AddConstant Div DivFromConstant '
        'DivFromConstantGrad DivGrad Mul MulConstant MultiAdd Neg PowConstVar '
        'PowConstVarGrad PowVarConst PowVarConstGrad PowVarVar PowVarVarGrad Sub '
        'SubFromConstant absolute add div floordiv install_variable_arithmetics '
        'matmul mul neg pow rdiv rfloordiv rmatmul rpow rsub sub'
    ),
    'chainer.functions.math.batch_l2_norm_squared': (
        'BatchL2NormSquared BatchL2NormSquaredGrad batch_l2_norm_squared'
    ),
    'chainer.functions.math.bias': 'bias',
    'chainer.functions.math.ceil': 'ceil',
    'chainer.functions.math.cholesky': 'Cholesky cholesky',
    'chainer.functions.math.clip': 'Clip ClipGrad clip',
    'chainer.functions.math.cumprod': 'Cumprod Cumprodsum cumprod',
    'chainer.functions.math.cumsum': 'Cumsum cumsum',
    'chainer.functions.math.det': 'BatchDet batch_det det',
    'chainer.functions.math.digamma': 'DiGamma digamma',
    'chainer.functions.math.einsum': (
        'DiagEinSum EinSum einsum einsum_symbols einsum_symbols_set'
    ),
    'chainer.functions.math.erf': 'Erf erf',
    'chainer.functions.math.erfc': 'Erfc erfc',
    'chainer.functions.math.erfcinv': 'BACKWORDC ErfcInv available_cpu erfcinv',
    'chainer.functions.math.erfcx': 'Erfcx available_cpu erfcx',
    'chainer.functions.math.erfinv': 'BACKWORDC ErfInv available_cpu erfinv',
    'chainer.functions.math.exponential': 'Exp Log Log10 Log2 exp log log10 log2',
    'chainer.functions.math.exponential_m1': 'Expm1 expm1',
    'chainer.functions.math.fft': 'FFT fft ifft',
    'chainer.functions.math.fix': 'fix',
    'chainer.functions.math.floor': 'floor',
    'chainer.functions.math.fmod': 'Fmod fmod',
    'chainer.functions.math.hyperbolic': 'Cosh Sinh cosh sinh',
    'chainer.functions.math.identity': 'Identity identity',
    'chainer.functions.math.inv': 'BatchInv Inv batch_inv inv',
    'chainer.functions.math.lgamma': 'LGamma lgamma',
    'chainer.functions.math.linear_interpolate': (
        'LinearInterpolate LinearInterpolateGrad linear_interpolate'
    ),
    'chainer.functions.math.log_ndtr': 'LogNdtr log_ndtr',
    'chainer.functions.math.logarithm_1p': 'Log1p log1p',
    'chainer.functions.math.logsumexp': 'LogSumExp logsumexp',
    'chainer.functions.math.matmul': (
        'BatchMatMul BatchMatMulGrad MatMul batch_matmul matmul'
    ),
    'chainer.functions.math.maximum': 'Maximum MaximumGrad maximum',
    'chainer.functions.math.minimum': 'Minimum MinimumGrad minimum',
    'chainer.functions.math.minmax': (
        'ArgMax ArgMin IndexSelectorBase Max Min SelectorBase argmax argmin max min'
    ),
    'chainer.functions.math.ndtr': 'Ndtr ndtr',
    'chainer.functions.math.ndtri': 'Ndtri available_cpu ndtri',
    'chainer.functions.math.polygamma': 'PolyGamma polygamma',
    'chainer.functions.math.prod': 'Prod prod',
    'chainer.functions.math.scale': 'scale',
    'chainer.functions.math.sign': 'sign',
    'chainer.functions.math.sparse_matmul': 'CooMatMul CooMatMulGradSP sparse_matmul',
    'chainer.functions.math.sqrt': 'RsqrtGPU Sqrt rsqrt sqrt',
    'chainer.functions.math.square': 'Square square',
    'chainer.functions.math.sum': 'Sum SumTo sum sum_to',
    'chainer.functions.math.tensordot': 'TensorDot tensordot',
    'chainer.functions.math.trigonometric': (
        'Arccos ArccosGrad Arcsin ArcsinGrad Arctan Arctan2 Arctan2Grad ArctanGrad '
        'Cos CosGrad Sin SinGrad Tan arccos arcsin arctan arctan2 cos sin tan'
    ),
    'chainer.functions.math.zeta': 'Zeta zeta',
    'chainer.functions.noise': '',
    'chainer.functions.noise.dropout': (
        'Dropout DropoutGrad DropoutGradCuDNN cudnn dropout'
    ),
    'chainer.functions.noise.gaussian': 'Gaussian gaussian',
    'chainer.functions.noise.gumbel_softmax': 'gumbel_softmax',
    'chainer.functions.noise.simplified_dropconnect': (
        'SimplifiedDropconnect simplified_dropconnect'
    ),
    'chainer.functions.noise.zoneout': 'Zoneout zoneout',
    'chainer.functions.normalization': '',
    'chainer.functions.normalization.batch_normalization': (
        'BatchNormalization BatchNormalizationGrad FixedBatchNormalization '
        'FixedBatchNormalizationGrad GeneralBatchNormalizationImpl '
        'batch_normalization cudnn fixed_batch_normalization libcudnn'
    ),
    'chainer.functions.normalization.batch_renormalization': (
        'BatchRenormalizationFunction batch_renormalization '
        'fixed_batch_renormalization'
    ),
    'chainer.functions.normalization.decorrelated_batch_normalization': (
        'DecorrelatedBatchNormalization DecorrelatedBatchNormalizationGrad '
        'FixedDecorrelatedBatchNormalization FixedDecorrelatedBatchNormalizationGrad '
        'decorrelated_batch_normalization fixed_decorrelated_batch_normalization'
    ),
    'chainer.functions.normalization.group_normalization': (
        'GroupNormalization cudnn group_normalization libcudnn'
    ),
    'chainer.functions.normalization.l2_normalization': 'NormalizeL2 normalize',
    'chainer.functions.normalization.layer_normalization': (
        'LayerNormalization layer_normalization'
    ),
    'chainer.functions.normalization.local_response_normalization': (
        'LocalResponseNormalization LocalResponseNormalizationGrad '
        'local_response_normalization'
    ),
    'chainer.functions.pooling': '',
    'chainer.functions.pooling.average_pooling_2d': (
        'AveragePooling2D AveragePooling2DGrad average_pooling_2d'
    ),
    'chainer.functions.pooling.average_pooling_nd': (
        'AveragePoolingND AveragePoolingNDGrad average_pooling_1d average_pooling_3d '
        'average_pooling_nd'
    ),
    'chainer.functions.pooling.average_pooling_nd_kernel': (
        'AveragePoolingNDKernelBackward AveragePoolingNDKernelForward'
    ),
    'chainer.functions.pooling.max_pooling_nd': (
        'MaxPoolingND MaxPoolingNDGrad MaxPoolingNDWithIndexes max_pooling_1d '
        'max_pooling_2d max_pooling_3d max_pooling_nd'
    ),
    'chainer.functions.pooling.max_pooling_nd_kernel': (
        'MaxPoolingNDKernelBackward MaxPoolingNDKernelForward '
        'MaxPoolingNDKernelForwardWithIndexes MaxPoolingNDKernelForwardWithIndexes1'
    ),
    'chainer.functions.pooling.pooling_2d': 'Pooling2D cudnn',
    'chainer.functions.pooling.pooling_nd': 'cudnn',
    'chainer.functions.pooling.pooling_nd_kernel': (
        'PoolingNDKernelBackward PoolingNDKernelForward'
    ),
    'chainer.functions.pooling.roi_average_align_2d': (
        'ROIAverageAlign2D roi_average_align_2d'
    ),
    'chainer.functions.pooling.roi_average_pooling_2d': (
        'ROIAveragePooling2D roi_average_pooling_2d'
    ),
    'chainer.functions.pooling.roi_max_align_2d': 'ROIMaxAlign2D roi_max_align_2d',
    'chainer.functions.pooling.roi_max_pooling_2d': (
        'ROIMaxPooling2D roi_max_pooling_2d'
    ),
    'chainer.functions.pooling.roi_pooling_2d': (
        'ROIPooling2D ROIPooling2DGrad roi_pooling_2d'
    ),
    'chainer.functions.pooling.spatial_pyramid_pooling_2d': (
        'spatial_pyramid_pooling_2d'
    ),
    'chainer.functions.pooling.unpooling_2d': (
        'Unpooling2D Unpooling2DGrad unpooling_2d'
    ),
    'chainer.functions.pooling.unpooling_nd': (
        'UnpoolingND UnpoolingNDGrad unpooling_1d unpooling_3d unpooling_nd'
    ),
    'chainer.functions.pooling.upsampling_2d': (
        'Upsampling2D Upsampling2DGrad upsampling_2d'
    ),
    'chainer.functions.rnn': '',
    'chainer.functions.rnn.lstm': 'LSTM LSTMGrad lstm lstm_grad_grad',
    'chainer.functions.rnn.n_step_gru': (
        'NStepBiGRU NStepGRU cudnn n_step_bigru n_step_gru n_step_gru_base'
    ),
    'chainer.functions.rnn.n_step_lstm': (
        'NStepBiLSTM NStepLSTM cudnn n_step_bilstm n_step_lstm n_step_lstm_base'
    ),
    'chainer.functions.rnn.n_step_rnn': (
        'BaseNStepRNN CudnnRNNWeightConcat NStepBiRNNReLU NStepBiRNNTanh NStepRNNReLU '
        'NStepRNNTanh cudnn cudnn_rnn_weight_concat libcudnn n_step_birnn n_step_rnn '
        'n_step_rnn_base n_step_rnn_impl'
    ),
    'chainer.functions.rnn.slstm': 'SLSTM SLSTMGrad slstm slstm_grad_grad',
    'chainer.functions.rnn.tree_lstm': 'TreeLSTM tree_lstm',
    'chainer.functions.theano': '',
    'chainer.functions.theano.theano_function': 'TheanoFunction theano_function',
    'chainer.functions.util': '',
    'chainer.functions.util.forget': 'Forget forget',
    'chainer.gradient_check': (
        'NondifferentiableError assert_allclose check_backward check_double_backward '
        'numerical_grad'
    ),
    'chainer.graph_optimizations': 'static_code',
    'chainer.graph_optimizations.static_graph': (
        'ArrayInfo ScheduleInfo ScheduleManager StaticScheduleFunction static_graph'
    ),
    'chainer.graph_optimizations.static_graph_utilities': (
        'static_code static_forward_optimizations'
    ),
    'chainer.initializer': 'Initializer get_fans',
    'chainer.initializers': (
        'Constant DownsamplingConvFilter GlorotNormal GlorotUniform HeNormal '
        'HeUniform Identity LeCunNormal LeCunUniform NaN Normal One Orthogonal '
        'Uniform UpsamplingDeconvFilter Zero backend generate_array types'
    ),
    'chainer.initializers.constant': 'Constant Identity NaN One Zero',
    'chainer.initializers.normal': 'GlorotNormal HeNormal LeCunNormal Normal',
    'chainer.initializers.orthogonal': 'Orthogonal',
    'chainer.initializers.sampling': 'DownsamplingConvFilter UpsamplingDeconvFilter',
    'chainer.initializers.uniform': 'GlorotUniform HeUniform LeCunUniform Uniform',
    'chainer.iterators': (
        'DaliIterator MultiprocessIterator MultithreadIterator OrderSampler '
        'SerialIterator ShuffleOrderSampler'
    ),
    'chainer.iterators.dali_iterator': 'DaliIterator',
    'chainer.iterators.multiprocess_iterator': 'MultiprocessIterator',
    'chainer.iterators.multithread_iterator': 'MultithreadIterator',
    'chainer.iterators.order_samplers': 'OrderSampler ShuffleOrderSampler',
    'chainer.iterators.serial_iterator': 'SerialIterator',
    'chainer.link': 'Chain ChainList Link',
    'chainer.link_hook': 'LinkHook',
    'chainer.link_hooks': 'SpectralNormalization TimerHook WeightStandardization',
    'chainer.link_hooks.spectral_normalization': (
        'SpectralNormalization calculate_max_singular_value l2normalize '
        'update_approximate_vectors'
    ),
    'chainer.link_hooks.timer': 'TimerHook',
    'chainer.link_hooks.weight_standardization': 'WeightStandardization',
    'chainer.links': (
        'BatchNormalization BatchRenormalization Bias Bilinear '
        'BinaryHierarchicalSoftmax BlackOut CRF1d ChildSumTreeLSTM Classifier '
        'Convolution1D Convolution2D Convolution3D ConvolutionND Deconvolution1D '
        'Deconvolution2D Deconvolution3D DeconvolutionND '
        'DecorrelatedBatchNormalization DeformableConvolution2D '
        'DepthwiseConvolution2D DilatedConvolution2D EmbedID GRU GoogLeNet '
        'GroupNormalization Highway Inception InceptionBN LSTM LayerNormalization '
        'Linear LocalConvolution2D MLPConvolution2D Maxout NStepBiGRU NStepBiLSTM '
        'NStepBiRNNReLU NStepBiRNNTanh NStepGRU NStepLSTM NStepRNNReLU NStepRNNTanh '
        'NaryTreeLSTM NegativeSampling PReLU Parameter ResNet101Layers '
        'ResNet152Layers ResNet50Layers Scale SimplifiedDropconnect StatefulGRU '
        'StatefulMGU StatefulPeepholeLSTM StatefulZoneoutLSTM StatelessGRU '
        'StatelessLSTM StatelessMGU Swish TheanoFunction VGG16Layers VGG19Layers'
    ),
    'chainer.links.activation': '',
    'chainer.links.activation.maxout': 'Maxout',
    'chainer.links.activation.prelu': 'PReLU',
    'chainer.links.activation.simplified_dropconnect': 'SimplifiedDropconnect',
    'chainer.links.activation.swish': 'Swish',
    'chainer.links.caffe': 'CaffeFunction',
    'chainer.links.caffe.caffe_function': 'CaffeFunction',
    'chainer.links.caffe.protobuf3': '',
    'chainer.links.caffe.protobuf3.caffe_pb2': (
        'AccuracyParameter ArgMaxParameter BatchNormParameter BiasParameter BlobProto '
        'BlobProtoVector BlobShape ConcatParameter ContrastiveLossParameter '
        'ConvolutionParameter DESCRIPTOR DataParameter Datum DropoutParameter '
        'DummyDataParameter ELUParameter EltwiseParameter EmbedParameter ExpParameter '
        'FillerParameter FlattenParameter HDF5DataParameter HDF5OutputParameter '
        'HingeLossParameter ImageDataParameter InfogainLossParameter '
        'InnerProductParameter LRNParameter LayerParameter LogParameter LossParameter '
        'MVNParameter MemoryDataParameter NetParameter NetState NetStateRule '
        'PReLUParameter ParamSpec Phase PoolingParameter PowerParameter '
        'PythonParameter ReLUParameter ReductionParameter ReshapeParameter '
        'SPPParameter ScaleParameter SigmoidParameter SliceParameter SoftmaxParameter '
        'SolverParameter SolverState TEST TRAIN TanHParameter ThresholdParameter '
        'TileParameter TransformationParameter V0LayerParameter V1LayerParameter '
        'WindowDataParameter'
    ),
    'chainer.links.connection': '',
    'chainer.links.connection.bias': 'Bias',
    'chainer.links.connection.bilinear': 'Bilinear',
    'chainer.links.connection.convolution_2d': 'Convolution2D',
    'chainer.links.connection.convolution_nd': (
        'Convolution1D Convolution3D ConvolutionND'
    ),
    'chainer.links.connection.deconvolution_2d': 'Deconvolution2D',
    'chainer.links.connection.deconvolution_nd': (
        'Deconvolution1D Deconvolution3D DeconvolutionND'
    ),
    'chainer.links.connection.deformable_convolution_2d': (
        'DeformableConvolution2D DeformableConvolution2DSampler'
    ),
    'chainer.links.connection.depthwise_convolution_2d': 'DepthwiseConvolution2D',
    'chainer.links.connection.dilated_convolution_2d': 'DilatedConvolution2D',
    'chainer.links.connection.embed_id': 'EmbedID',
    'chainer.links.connection.highway': 'Highway',
    'chainer.links.connection.inception': 'Inception',
    'chainer.links.connection.inceptionbn': 'InceptionBN',
    'chainer.links.connection.linear': 'Linear',
    'chainer.links.connection.local_convolution_2d': 'LocalConvolution2D',
    'chainer.links.connection.mlp_convolution_2d': 'MLPConvolution2D',
    'chainer.links.connection.parameter': 'Parameter',
    'chainer.links.connection.scale': 'Scale',
    'chainer.links.loss': '',
    'chainer.links.loss.black_out': 'BlackOut',
    'chainer.links.loss.crf1d': 'CRF1d',
    'chainer.links.loss.hierarchical_softmax': (
        'BinaryHierarchicalSoftmax BinaryHierarchicalSoftmaxFunction TreeParser'
    ),
    'chainer.links.loss.negative_sampling': 'NegativeSampling',
    'chainer.links.model': '',
    'chainer.links.model.classifier': 'Classifier',
    'chainer.links.model.vision': '',
    'chainer.links.model.vision.googlenet': 'GoogLeNet available prepare',
    'chainer.links.model.vision.resnet': (
        'BottleneckA BottleneckB BuildingBlock ResNet101Layers ResNet152Layers '
        'ResNet50Layers ResNetLayers available prepare'
    ),
    'chainer.links.model.vision.vgg': (
        'VGG16Layers VGG19Layers VGGLayers available prepare'
    ),
    'chainer.links.normalization': '',
    'chainer.links.normalization.batch_normalization': 'BatchNormalization',
    'chainer.links.normalization.batch_renormalization': 'BatchRenormalization',
    'chainer.links.normalization.decorrelated_batch_normalization': (
        'DecorrelatedBatchNormalization fix_avg_mean fix_avg_projection'
    ),
    'chainer.links.normalization.group_normalization': 'GroupNormalization',
    'chainer.links.normalization.layer_normalization': 'LayerNormalization',
    'chainer.links.rnn': '',
    'chainer.links.rnn.gru': 'GRU GRUBase StatefulGRU StatelessGRU',
    'chainer.links.rnn.lstm': 'LSTM LSTMBase StatelessLSTM',
    'chainer.links.rnn.mgu': 'MGUBase StatefulMGU StatelessMGU',
    'chainer.links.rnn.n_step_gru': 'NStepBiGRU NStepGRU NStepGRUBase',
    'chainer.links.rnn.n_step_lstm': 'NStepBiLSTM NStepLSTM NStepLSTMBase',
    'chainer.links.rnn.n_step_rnn': (
        'NStepBiRNNReLU NStepBiRNNTanh NStepRNNBase NStepRNNReLU NStepRNNTanh '
        'argsort_list_descent permutate_list'
    ),
    'chainer.links.rnn.peephole': 'StatefulPeepholeLSTM',
    'chainer.links.rnn.tree_lstm': 'ChildSumTreeLSTM NaryTreeLSTM',
    'chainer.links.rnn.zoneoutlstm': 'StatefulZoneoutLSTM',
    'chainer.links.theano': '',
    'chainer.links.theano.theano_function': 'TheanoFunction',
    'chainer.memory_layouts': (
        'AsLayout CUDNN_CHANNEL_FIRST_W CUDNN_CHANNEL_FIRST_X CUDNN_CHANNEL_LAST_W '
        'CUDNN_CHANNEL_LAST_X get_raw_shape get_semantic_shape'
    ),
    'chainer.optimizer': (
        'GradientClipping GradientHardClipping GradientMethod GradientNoise '
        'Hyperparameter HyperparameterProxy Lasso Optimizer UpdateRule WeightDecay '
        'make_deprecation_message'
    ),
    'chainer.optimizer_hooks': (
        'GradientClipping GradientHardClipping GradientLARS GradientNoise Lasso '
        'WeightDecay'
    ),
    'chainer.optimizer_hooks.gradient_clipping': 'GradientClipping',
    'chainer.optimizer_hooks.gradient_hard_clipping': 'GradientHardClipping',
    'chainer.optimizer_hooks.gradient_lars': 'GradientLARS',
    'chainer.optimizer_hooks.gradient_noise': 'GradientNoise exponential_decay_noise',
    'chainer.optimizer_hooks.lasso': 'Lasso',
    'chainer.optimizer_hooks.weight_decay': 'WeightDecay',
    'chainer.optimizers': (
        'AMSBound AMSGrad AdaBound AdaDelta AdaGrad Adam AdamW CorrectedMomentumSGD '
        'MSVAG MomentumSGD NesterovAG RMSprop RMSpropGraves SGD SMORMS3'
    ),
    'chainer.optimizers.ada_delta': 'AdaDelta AdaDeltaHyperparameter AdaDeltaRule',
    'chainer.optimizers.ada_grad': 'AdaGrad AdaGradHyperparameter AdaGradRule',
    'chainer.optimizers.adam': (
        'AMSBound AMSGrad AdaBound Adam AdamHyperparameter AdamRule AdamW'
    ),
    'chainer.optimizers.corrected_momentum_sgd': (
        'CorrectedMomentumSGD CorrectedMomentumSGDHyperparameter '
        'CorrectedMomentumSGDRule'
    ),
    'chainer.optimizers.momentum_sgd': (
        'MomentumSGD MomentumSGDHyperparameter MomentumSGDRule'
    ),
    'chainer.optimizers.msvag': 'MSVAG MSVAGHyperparameter MSVAGRule',
    'chainer.optimizers.nesterov_ag': (
        'NesterovAG NesterovAGHyperparameter NesterovAGRule'
    ),
    'chainer.optimizers.rmsprop': 'RMSprop RMSpropHyperparameter RMSpropRule',
    'chainer.optimizers.rmsprop_graves': (
        'RMSpropGraves RMSpropGravesHyperparameter RMSpropGravesRule'
    ),
    'chainer.optimizers.sgd': 'SGD SGDHyperparameter SGDRule',
    'chainer.optimizers.smorms3': 'SMORMS3 SMORMS3Hyperparameter SMORMS3Rule',
    'chainer.reporter': (
        'DictSummary Reporter Summary get_current_reporter report report_scope'
    ),
    'chainer.sequential': 'Sequential',
    'chainer.serializer': 'AbstractSerializer Deserializer Serializer',
    'chainer.serializers': (
        'DictionarySerializer HDF5Deserializer HDF5Serializer NpzDeserializer '
        'load_hdf5 load_npz save_hdf5 save_npz'
    ),
    'chainer.serializers.hdf5': 'HDF5Deserializer HDF5Serializer load_hdf5 save_hdf5',
    'chainer.serializers.npz': (
        'DictionarySerializer NpzDeserializer load_npz save_npz serialize'
    ),
    'chainer.testing': (
        'BackendConfig FunctionTestCase FunctionTestError InitializerArgument '
        'LinkInitializersTestCase LinkTestCase LinkTestError assert_allclose '
        'assert_warns distribution_unittest fix_random from_pytest_parameterize '
        'generate_matrix generate_seed get_trainer_with_mock_updater '
        'inject_backend_tests parameterize parameterize_pytest patch product '
        'product_dict run_module save_and_load save_and_load_hdf5 save_and_load_npz '
        'unary_math_function_unittest with_requires without_requires'
    ),
    'chainer.testing.array': 'assert_allclose',
    'chainer.testing.attr': (
        'chainerx check_available cudnn get_error gpu ideep is_available multi_gpu '
        'slow'
    ),
    'chainer.testing.backend': 'BackendConfig inject_backend_tests',
    'chainer.testing.condition': (
        'QuietTestRunner repeat repeat_with_success_at_least retry'
    ),
    'chainer.testing.distribution_test': 'distribution_unittest',
    'chainer.testing.doctest_helper': (
        'skipif skipif_not_enough_cuda_devices skipif_requires_satisfied'
    ),
    'chainer.testing.function_link': (
        'FunctionTestBase FunctionTestCase FunctionTestError InitializerArgument '
        'LinkInitializersTestCase LinkTestCase LinkTestError'
    ),
    'chainer.testing.helper': 'assert_warns patch with_requires without_requires',
    'chainer.testing.matrix': 'generate_matrix',
    'chainer.testing.parameterized': (
        'from_pytest_parameterize parameterize parameterize_pytest product '
        'product_dict'
    ),
    'chainer.testing.random': 'do_setup do_teardown fix_random generate_seed',
    'chainer.testing.serializer': 'save_and_load save_and_load_hdf5 save_and_load_npz',
    'chainer.testing.training': (
        'check_available get_error get_trainer_with_mock_updater is_available'
    ),
    'chainer.testing.unary_math_function_test': (
        'check_available is_available unary_math_function_unittest'
    ),
    'chainer.training': (
        'Extension IntervalTrigger PRIORITY_EDITOR PRIORITY_READER PRIORITY_WRITER '
        'ParallelUpdater StandardUpdater Trainer Updater extensions get_trigger '
        'make_extension triggers updaters util'
    ),
    'chainer.training.extension': (
        'Extension PRIORITY_EDITOR PRIORITY_READER PRIORITY_WRITER make_extension'
    ),
    'chainer.training.extensions': (
        'DumpGraph Evaluator ExponentialShift FailOnNonNumber InverseShift '
        'LinearShift LogReport MicroAverage MultistepShift ParameterStatistics '
        'PlotReport PolynomialShift PrintReport ProgressBar StepShift '
        'VariableStatisticsPlot WarmupShift dump_graph observe_lr observe_value '
        'snapshot snapshot_object unchain_variables'
    ),
    'chainer.training.extensions.computational_graph': (
        'DumpGraph is_graphviz_available is_return_code_zero'
    ),
    'chainer.training.extensions.evaluator': 'Evaluator',
    'chainer.training.extensions.exponential_shift': 'ExponentialShift',
    'chainer.training.extensions.fail_on_nonnumber': 'FailOnNonNumber',
    'chainer.training.extensions.inverse_shift': 'InverseShift',
    'chainer.training.extensions.linear_shift': 'LinearShift',
    'chainer.training.extensions.log_report': 'LogReport',
    'chainer.training.extensions.micro_average': 'MicroAverage',
    'chainer.training.extensions.multistep_shift': 'MultistepShift',
    'chainer.training.extensions.parameter_statistics': 'ParameterStatistics',
    'chainer.training.extensions.plot_report': 'PlotReport',
    'chainer.training.extensions.polynomial_shift': 'PolynomialShift',
    'chainer.training.extensions.print_report': 'PrintReport',
    'chainer.training.extensions.progress_bar': 'ProgressBar',
    'chainer.training.extensions.snapshot_writers': (
        'ProcessQueueWriter ProcessWriter QueueWriter SimpleWriter StandardWriter '
        'ThreadQueueWriter ThreadWriter Writer'
    ),
    'chainer.training.extensions.step_shift': 'StepShift',
    'chainer.training.extensions.util': (
        'ProgressBar erase_console set_console_cursor_position'
    ),
    'chainer.training.extensions.value_observation': 'observe_lr observe_value',
    'chainer.training.extensions.variable_statistics_plot': (
        'Reservoir Statistician VariableStatisticsPlot'
    ),
    'chainer.training.extensions.variable_unchain': 'unchain_variables',
    'chainer.training.extensions.warmup_shift': 'WarmupShift',
    'chainer.training.trainer': 'Trainer',
    'chainer.training.trigger': '',
    'chainer.training.triggers': (
        'BestValueTrigger EarlyStoppingTrigger IntervalTrigger ManualScheduleTrigger '
        'MaxValueTrigger MinValueTrigger OnceTrigger TimeTrigger'
    ),
    'chainer.training.triggers.early_stopping_trigger': 'EarlyStoppingTrigger',
    'chainer.training.triggers.interval_trigger': 'IntervalTrigger',
    'chainer.training.triggers.manual_schedule_trigger': 'ManualScheduleTrigger',
    'chainer.training.triggers.minmax_value_trigger': (
        'BestValueTrigger MaxValueTrigger MinValueTrigger'
    ),
    'chainer.training.triggers.once_trigger': 'OnceTrigger',
    'chainer.training.triggers.time_trigger': 'TimeTrigger',
    'chainer.training.updater': '',
    'chainer.training.updaters': (
        'MultiprocessParallelUpdater ParallelUpdater StandardUpdater'
    ),
    'chainer.training.updaters.multiprocess_parallel_updater': (
        'MultiprocessParallelUpdater gather_grads gather_params scatter_grads '
        'scatter_params size_num_grads'
    ),
    'chainer.training.updaters.parallel_updater': 'ParallelUpdater',
    'chainer.training.updaters.standard_updater': 'StandardUpdater',
    'chainer.training.util': 'get_trigger',
    'chainer.types': (
        'AbstractInitializer CudaDeviceSpec DTypeSpec DeviceSpec InitializerSpec '
        'NdArray ScalarValue Shape ShapeSpec Xp'
    ),
    'chainer.utils': (
        'CooMatrix collections_abc enable_final experimental final force_array '
        'force_type get_conv_outsize get_deconv_outsize get_order nondeterministic '
        'size_of_shape sum_to tempdir to_coo'
    ),
    'chainer.utils.argument': (
        'assert_kwargs_empty check_unexpected_kwargs parse_kwargs'
    ),
    'chainer.utils.array': 'as_mat as_vec empty_like size_of_shape sum_to',
    'chainer.utils.cache': 'cached_property',
    'chainer.utils.conv': (
        'col2im col2im_cpu col2im_gpu get_conv_outsize get_deconv_outsize im2col '
        'im2col_cpu im2col_gpu'
    ),
    'chainer.utils.conv_nd': (
        'as_tuple col2im_nd col2im_nd_cpu col2im_nd_gpu im2col_nd im2col_nd_cpu '
        'im2col_nd_gpu'
    ),
    'chainer.utils.conv_nd_kernel': (
        'Col2imNDKernel Im2colNDKernel Writer andexp map_ muladdexp mulexp '
        'succ_sublists vars'
    ),
    'chainer.utils.error': '',
    'chainer.utils.experimental': 'experimental',
    'chainer.utils.imgproc': 'oversample',
    'chainer.utils.meta': 'enable_final final',
    'chainer.utils.nondeterministic': 'nondeterministic',
    'chainer.utils.precision': '',
    'chainer.utils.sparse': 'CooMatrix get_order to_coo',
    'chainer.utils.type_check': (
        'Atom BinaryOperator BoolBinaryOperator Call Constant Expr GetAttr GetItem '
        'InvalidType LightMode LightTypeInfoTuple Testable TypeInfo TypeInfoTuple '
        'UnaryOperator Variable eval expect expect_broadcast_shapes '
        'get_function_check_context get_light_types get_types in_light_mode '
        'light_mode make_variable prod same_types'
    ),
    'chainer.utils.walker_alias': 'WalkerAlias',
    'chainer.variable': (
        'Parameter Variable VariableNode as_array as_variable variable_repr '
        'variable_str'
    ),
    'chainer.warnings': 'PerformanceWarning',
}

NOT_PROVIDED_MODULES = frozenset({
    'chainer.exporters',
    'chainer.exporters.caffe',
    'chainer.functions.pooling.average_pooling_nd_kernel',
    'chainer.functions.pooling.max_pooling_nd_kernel',
    'chainer.functions.pooling.pooling_nd_kernel',
    'chainer.functions.theano',
    'chainer.functions.theano.theano_function',
    'chainer.iterators.dali_iterator',
    'chainer.links.caffe',
    'chainer.links.caffe.caffe_function',
    'chainer.links.caffe.protobuf3',
    'chainer.links.caffe.protobuf3.caffe_pb2',
    'chainer.links.theano',
    'chainer.links.theano.theano_function',
    'chainer.testing.doctest_helper',
    'chainer.utils.conv_nd_kernel',
})

NOT_PROVIDED_NAMES = {
    'chainer.distributions.gumbel': 'EULER',
    'chainer.distributions.laplace': 'LaplaceCDF LaplaceICDF',
    'chainer.distributions.log_normal': 'LOGPROBC',
    'chainer.distributions.multivariate_normal': (
        'ENTROPYC LOGPROBC TriangularInv available_cpu'
    ),
    'chainer.distributions.normal': 'ENTROPYC LOGPROBC PROBC',
    'chainer.functions.activation.clipped_relu': (
        'ClippedReLUGrad2 ClippedReLUGrad3 cudnn'
    ),
    'chainer.functions.activation.log_softmax': 'cudnn logsumexp',
    'chainer.functions.activation.prelu': 'PReLUFunctionGrad',
    'chainer.functions.activation.relu': 'ReLUGrad2 ReLUGradCudnn cudnn',
    'chainer.functions.activation.sigmoid': 'cudnn',
    'chainer.functions.activation.softmax': 'cudnn',
    'chainer.functions.activation.softplus': 'SoftplusGrad',
    'chainer.functions.activation.swish': 'SwishGrad',
    'chainer.functions.activation.tanh': 'cudnn',
    'chainer.functions.array.as_strided': 'TensorGeometry index_dtype',
    'chainer.functions.array.depth2space': 'Depth2Space',
    'chainer.functions.array.get_item': 'install_variable_get_item',
    'chainer.functions.array.im2col': 'Im2ColGrad',
    'chainer.functions.array.resize_images': (
        'compute_indices_and_weights interpolate_bilinear_cpu '
        'interpolate_bilinear_gpu interpolate_grad_bilinear_cpu '
        'interpolate_grad_bilinear_gpu'
    ),
    'chainer.functions.array.select_item': 'Assign',
    'chainer.functions.array.space2depth': 'Space2Depth',
    'chainer.functions.array.spatial_transformer_grid': 'cudnn libcudnn',
    'chainer.functions.array.spatial_transformer_sampler': (
        'SpatialTransformerSampler cudnn libcudnn'
    ),
    'chainer.functions.array.squeeze': 'argone',
    'chainer.functions.connection.bilinear': 'BilinearFunctionGrad',
    'chainer.functions.connection.convolution_2d': 'Convolution2DGradW',
    'chainer.functions.connection.local_convolution_2d': 'LocalConvolution2DFunction',
    'chainer.functions.evaluation.r2_score': 'R2_score',
    'chainer.functions.loss.cross_covariance': 'CrossCovariance',
    'chainer.functions.loss.decov': 'DeCov',
    'chainer.functions.loss.negative_sampling': (
        'NegativeSamplingFunction NegativeSamplingFunctionGrad'
    ),
    'chainer.functions.math.average': 'Mean',
    'chainer.functions.math.basic_math': (
        'AbsoluteGrad DivFromConstantGrad DivGrad PowConstVarGrad PowVarConstGrad '
        'PowVarVarGrad div floordiv mul pow rdiv rfloordiv rmatmul rpow rsub sub'
    ),
    'chainer.functions.math.batch_l2_norm_squared': (
        'BatchL2NormSquared BatchL2NormSquaredGrad'
    ),
    'chainer.functions.math.clip': 'ClipGrad',
    'chainer.functions.math.cumprod': 'Cumprodsum',
    'chainer.functions.math.einsum': 'DiagEinSum einsum_symbols einsum_symbols_set',
    'chainer.functions.math.erfcinv': 'BACKWORDC available_cpu',
    'chainer.functions.math.erfcx': 'available_cpu',
    'chainer.functions.math.erfinv': 'BACKWORDC available_cpu',
    'chainer.functions.math.inv': 'BatchInv',
    'chainer.functions.math.linear_interpolate': 'LinearInterpolateGrad',
    'chainer.functions.math.matmul': 'BatchMatMul BatchMatMulGrad',
    'chainer.functions.math.maximum': 'MaximumGrad',
    'chainer.functions.math.minimum': 'MinimumGrad',
    'chainer.functions.math.minmax': 'IndexSelectorBase SelectorBase',
    'chainer.functions.math.ndtri': 'available_cpu',
    'chainer.functions.math.sparse_matmul': 'CooMatMul CooMatMulGradSP',
    'chainer.functions.math.sqrt': 'RsqrtGPU',
    'chainer.functions.math.trigonometric': (
        'ArccosGrad ArcsinGrad Arctan2Grad ArctanGrad CosGrad SinGrad'
    ),
    'chainer.functions.noise.dropout': 'DropoutGradCuDNN cudnn',
    'chainer.functions.normalization.batch_normalization': (
        'FixedBatchNormalizationGrad cudnn libcudnn'
    ),
    'chainer.functions.normalization.batch_renormalization': (
        'BatchRenormalizationFunction'
    ),
    'chainer.functions.normalization.group_normalization': 'cudnn libcudnn',
    'chainer.functions.pooling.average_pooling_2d': 'AveragePooling2DGrad',
    'chainer.functions.pooling.pooling_2d': 'cudnn',
    'chainer.functions.pooling.pooling_nd': 'cudnn',
    'chainer.functions.pooling.roi_pooling_2d': 'ROIPooling2DGrad',
    'chainer.functions.rnn.lstm': 'lstm_grad_grad',
    'chainer.functions.rnn.n_step_gru': 'NStepBiGRU NStepGRU cudnn n_step_gru_base',
    'chainer.functions.rnn.n_step_lstm': 'NStepBiLSTM NStepLSTM cudnn n_step_lstm_base',
    'chainer.functions.rnn.n_step_rnn': (
        'BaseNStepRNN CudnnRNNWeightConcat NStepBiRNNReLU NStepBiRNNTanh NStepRNNReLU '
        'NStepRNNTanh cudnn cudnn_rnn_weight_concat libcudnn n_step_rnn_base '
        'n_step_rnn_impl'
    ),
    'chainer.functions.rnn.slstm': 'slstm_grad_grad',
    'chainer.graph_optimizations.static_graph': (
        'ArrayInfo ScheduleInfo'
    ),
    'chainer.iterators': 'DaliIterator',
    'chainer.links': 'TheanoFunction',
    'chainer.links.loss.hierarchical_softmax': 'BinaryHierarchicalSoftmaxFunction',
    'chainer.optimizer': 'make_deprecation_message',
    'chainer.optimizers.ada_delta': 'AdaDeltaHyperparameter',
    'chainer.optimizers.ada_grad': 'AdaGradHyperparameter',
    'chainer.optimizers.adam': 'AdamHyperparameter',
    'chainer.optimizers.corrected_momentum_sgd': 'CorrectedMomentumSGDHyperparameter',
    'chainer.optimizers.momentum_sgd': 'MomentumSGDHyperparameter',
    'chainer.optimizers.msvag': 'MSVAGHyperparameter',
    'chainer.optimizers.nesterov_ag': 'NesterovAGHyperparameter',
    'chainer.optimizers.rmsprop': 'RMSpropHyperparameter',
    'chainer.optimizers.rmsprop_graves': 'RMSpropGravesHyperparameter',
    'chainer.optimizers.sgd': 'SGDHyperparameter',
    'chainer.optimizers.smorms3': 'SMORMS3Hyperparameter',
    'chainer.testing.condition': 'QuietTestRunner',
    'chainer.testing.random': 'do_setup do_teardown',
    'chainer.testing.training': 'check_available get_error is_available',
    'chainer.testing.unary_math_function_test': 'check_available is_available',
    'chainer.training.extensions.util': 'erase_console set_console_cursor_position',
    'chainer.utils.type_check': (
        'Atom BoolBinaryOperator GetAttr LightMode '
        'get_function_check_context light_mode'
    ),
}

# Where Chainer's own package binds a submodule's name to the function of
# that name (``from chainer.utils.experimental import experimental``).
CHAINER_SHADOWS = frozenset({
    ('chainer.utils', 'experimental'),
    ('chainer.utils', 'nondeterministic'),
    ('chainer.dataset.tabular', 'from_data'),
})
